/**
 * A duration option in whole milliseconds: its bound, and the check every lock option of a duration goes through.
 *
 * @since 1.0.0
 */
import * as DurationInput from "./DurationInput.js"
import * as OptionCheck from "./OptionCheck.js"

/**
 * The longest duration any option may have: Node's timers (and Effect's live clock with them) treat a longer delay
 * as "never", so a lease or a wait beyond it would never renew or never end.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxMs = 2 ** 31 - 1

/**
 * Whole milliseconds: the store keeps integers, and timers that wake a fraction of a millisecond early would spin.
 *
 * @since 1.0.0
 * @category conversions
 */
export const wholeMillis = (exactMs: number): number => Math.round(exactMs)

/**
 * Checks one duration option of a lock and rounds it to whole milliseconds: `fallback` (rounded) when not given.
 * `allowZero` is for options where zero means "none" (wait, skew, warning, margin). `readMillis` is the runtime's
 * reading of its own duration inputs.
 *
 * @since 1.0.0
 * @category validation
 */
export const check = <D>(
  option: string,
  input: D | undefined,
  fallback: number,
  allowZero: boolean,
  readMillis: DurationInput.ReadMillis<D>
): OptionCheck.OptionCheck<number> => {
  if (input === undefined) return OptionCheck.ok(wholeMillis(fallback))
  const wanted = `a finite, ${allowZero ? "non-negative" : "positive"} duration of at most ${maxMs} ms`
  const exact = readMillis(input)
  const shown = () => DurationInput.describe(input)
  if (exact._tag === "Invalid") {
    return OptionCheck.invalid(option, `${option} must be ${wanted}; got ${shown()}, which ${exact.message}`)
  }
  const millis = wholeMillis(exact.value)
  if (millis === 0 && !allowZero) {
    return OptionCheck.invalid(
      option,
      `${option} must be ${wanted}; got ${shown()}, which is 0 in whole milliseconds (durations are whole ` +
        `milliseconds)`
    )
  }
  if (millis > maxMs) {
    return OptionCheck.invalid(
      option,
      `${option} must be ${wanted} (about 24.8 days: the platform's timers wait no longer); got ${shown()}`
    )
  }
  return OptionCheck.ok(millis)
}

/**
 * Checks a positive duration option of a leader election or watch: as `check` with zero refused, in the words the
 * election has always used (no word on the platform's timers).
 *
 * @since 1.0.0
 * @category validation
 */
export const checkPositive = <D>(
  option: string,
  input: D | undefined,
  fallback: number,
  readMillis: DurationInput.ReadMillis<D>
): OptionCheck.OptionCheck<number> => {
  if (input === undefined) return OptionCheck.ok(fallback)
  const wanted = `a finite, positive duration of at most ${maxMs} ms`
  const exact = readMillis(input)
  const shown = () => DurationInput.describe(input)
  if (exact._tag === "Invalid") {
    return OptionCheck.invalid(option, `${option} must be ${wanted}; got ${shown()}, which ${exact.message}`)
  }
  const millis = wholeMillis(exact.value)
  if (millis === 0) {
    return OptionCheck.invalid(option, `${option} must be ${wanted}; got ${shown()}, which is 0 in whole milliseconds`)
  }
  if (millis > maxMs) return OptionCheck.invalid(option, `${option} must be ${wanted}; got ${shown()}`)
  return OptionCheck.ok(millis)
}
