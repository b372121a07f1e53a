/**
 * Lock names are limited in UTF-8 bytes (DynamoDB's key limits). Measuring them is on every call's path, and most
 * names are short: a UTF-16 code unit encodes to at most 3 UTF-8 bytes, so a name of at most a third of the limit in
 * code units fits without being encoded.
 *
 * @internal
 */

const encoder = new TextEncoder()

/** @internal */
export const byteLength = (value: string): number => encoder.encode(value).length

/**
 * Whether `value` takes at most `maxBytes` bytes in UTF-8.
 *
 * @internal
 */
export const fits = (value: string, maxBytes: number): boolean =>
  value.length * 3 <= maxBytes || byteLength(value) <= maxBytes

const loneSurrogate = /\p{Surrogate}/u

/**
 * Whether `value` is well-formed Unicode: a lone surrogate has no UTF-8 form, and DynamoDB stores U+FFFD in its place,
 * so two different names would become one key.
 *
 * @internal
 */
export const isWellFormed = (value: string): boolean => !loneSurrogate.test(value)
