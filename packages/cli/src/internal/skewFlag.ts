/**
 * `--max-clock-skew`: the skew bound by which the commands that show leases judge them, as the applications' locks do.
 *
 * @internal
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as LockOptions from "@leasehold/core/options/LockOptions"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Render from "../Render.js"
import * as DurationText from "./durationText.js"
import * as Flag from "./flag.js"

/**
 * The flag, in milliseconds; the library's default when left out.
 *
 * @internal
 */
export const flag: Flag.Flag<number> = Flag.map(
  Flag.text({
    name: "max-clock-skew",
    value: "DURATION",
    description: "The clock-skew bound the applications' locks and semaphores use (their `maxClockSkew`), e.g. 10s, " +
      "500ms, 0. A lease that ran out less than this long ago shows as expiring (no acquirer takes it over yet: the " +
      "holder's clock may be behind), then as expired. Stores in observed mode take over after watching a lease go " +
      "unrenewed for its length instead, whatever the clocks say. " +
      `Default: ${Render.duration(LockOptions.defaultMaxClockSkewMs)}, the library's.`
  }),
  Options.mapEffect((text) => {
    if (Option.isNone(text)) return Effect.succeed(LockOptions.defaultMaxClockSkewMs)
    const ms = DurationText.millis(text.value)
    return ms === undefined
      ? Effect.fail(
        ValidationError.invalidValue(
          HelpDoc.p(`--max-clock-skew "${text.value}" is not a duration: use e.g. 10s, 500ms or 0`)
        )
      )
      : Effect.succeed(ms)
  })
)
