/**
 * What a person reads when typed lock data does not fit the lock's schema, on the way in or out.
 *
 * @since 1.0.0
 */

/**
 * What the error knows: the lock, the direction, and what the schema said (`causeMessage`: where and why).
 *
 * @since 1.0.0
 * @category models
 */
export interface Fields {
  readonly name: string
  readonly direction: "encode" | "decode"
  readonly causeMessage: string
}

/**
 * The message: nothing written for a value that does not encode; for stored data that does not decode, that every
 * program sharing the name must agree on the schema.
 *
 * @since 1.0.0
 * @category messages
 */
export const message = (error: Fields): string =>
  error.direction === "encode"
    ? `the data for lock "${error.name}" does not fit the lock's schema, so nothing was written: ` +
      `${error.causeMessage}`
    : `lock "${error.name}" holds data that does not fit this lock's schema (was it stored by another program, or ` +
      `by a version of this one with another schema? every program that shares the name must use the same ` +
      `schema, or one that decodes what the others store): ${error.causeMessage}`
