/**
 * Durations as Leasehold's options take them: any duration input of Effect (`Duration.DurationInput` on Effect 3,
 * `Duration.Input` on Effect 4, with its `{ seconds: 30 }` form), checked on the raw value.
 *
 * Effect's own decoding makes `NaN` (and `Duration.millis(NaN)`) a zero duration, and so, on Effect 3, negative
 * numbers, `"-10 seconds"`, negative bigints and `Duration.millis(-5)`, which would hide the mistake (or, where zero is
 * allowed, silently mean "none"). Every option of every Leasehold package is decoded here first; each then applies its
 * own bounds.
 *
 * @since 1.0.0
 */
import * as DurationInput from "@leasehold/core/options/DurationInput"
import * as EffectLine from "./internal/effectLine.js"
import type { Result } from "./internal/effectLine.js"
import * as Durations from "./internal/options/durations.js"

/**
 * The exact milliseconds of a finite, non-negative duration input, or why it is not one, phrased to follow "which"
 * ("is negative"). Callers round and bound the result as their option needs.
 *
 * @since 1.0.0
 * @category decoding
 */
export const toMillis = (input: unknown): Result<number, string> => EffectLine.toResult(Durations.millisOf(input))

/**
 * A value as error messages quote it: strings in quotes (so that "" and " " are visible), bigints with their `n`.
 *
 * @since 1.0.0
 * @category decoding
 */
export const describe: (value: unknown) => string = DurationInput.describe
