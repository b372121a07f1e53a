/**
 * The answer of a check in the core: a value, or what is wrong with the input in words a person can act on. A plain
 * union, so that each Effect line turns it into its own type (`Either` on Effect 3, `Result` on Effect 4) at the
 * edge, and the rule itself is written once.
 *
 * @since 1.0.0
 */

/**
 * The input was good: `value` is what it resolved to.
 *
 * @since 1.0.0
 * @category models
 */
export interface Ok<A> {
  readonly _tag: "Ok"
  readonly value: A
}

/**
 * The input was bad: `message` says what is wrong and what to do instead.
 *
 * @since 1.0.0
 * @category models
 */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly message: string
}

/**
 * A value, or what is wrong with the input.
 *
 * @since 1.0.0
 * @category models
 */
export type Checked<A> = Ok<A> | Invalid

/**
 * @since 1.0.0
 * @category constructors
 */
export const ok = <A>(value: A): Checked<A> => ({ _tag: "Ok", value })

/**
 * @since 1.0.0
 * @category constructors
 */
export const invalid = (message: string): Checked<never> => ({ _tag: "Invalid", message })

/**
 * @since 1.0.0
 * @category predicates
 */
export const isOk = <A>(checked: Checked<A>): checked is Ok<A> => checked._tag === "Ok"
