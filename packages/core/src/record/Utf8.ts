/**
 * Measures of strings in UTF-8, the encoding DynamoDB stores and limits them in. Every store and the lock's own
 * checks use these, so that a name, holder or payload is judged the same way everywhere.
 *
 * Measuring is on every call's path, and most strings are short: a UTF-16 code unit encodes to at most 3 UTF-8
 * bytes, so a string of at most a third of the limit in code units fits without being encoded.
 *
 * @since 1.0.0
 */

const encoder = new TextEncoder()

/**
 * The length of `value` in UTF-8 bytes.
 *
 * @since 1.0.0
 * @category measures
 */
export const byteLength = (value: string): number => encoder.encode(value).length

/**
 * Whether `value` takes at most `maxBytes` bytes in UTF-8.
 *
 * @since 1.0.0
 * @category measures
 */
export const fits = (value: string, maxBytes: number): boolean =>
  value.length * 3 <= maxBytes || byteLength(value) <= maxBytes

const loneSurrogate = /\p{Surrogate}/u

/**
 * Whether `value` is well-formed Unicode. A lone surrogate has no UTF-8 form: DynamoDB stores U+FFFD in its place,
 * so two different names would become one key, and data would not read back as written.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isWellFormed = (value: string): boolean => !loneSurrogate.test(value)
