/**
 * The answer of an option's check: a `Checked` whose refusal also names the option, so that a shell's error can say
 * which one is wrong (a lock's name counts as the option "name").
 *
 * @since 1.0.0
 */
import type * as Checked from "../Checked.js"

/**
 * A refused option: `option` is the one that is wrong, `message` what is wrong with it and what is allowed.
 *
 * @since 1.0.0
 * @category models
 */
export interface Invalid extends Checked.Invalid {
  readonly option: string
}

/**
 * A value, or which option is wrong and why. Still a `Checked`: a refusal is an `Invalid` with one more field.
 *
 * @since 1.0.0
 * @category models
 */
export type OptionCheck<A> = Checked.Ok<A> | Invalid

/**
 * @since 1.0.0
 * @category constructors
 */
export const ok = <A>(value: A): OptionCheck<A> => ({ _tag: "Ok", value })

/**
 * @since 1.0.0
 * @category constructors
 */
export const invalid = (option: string, message: string): OptionCheck<never> => ({ _tag: "Invalid", option, message })
