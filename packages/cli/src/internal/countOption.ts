/**
 * Optional whole-number flags that count something, `--limit` and `--count`: 1 or more when given.
 *
 * @internal
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Flag from "./flag.js"

/**
 * `--name N`, optional; a value below 1 is a usage error that names the flag.
 *
 * @internal
 */
export const make = (name: string, description: string): Flag.Flag<Option.Option<number>> =>
  Flag.map(
    Flag.integer({ name, value: "N", description }),
    Options.mapEffect((n) =>
      Option.isSome(n) && n.value < 1
        ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} must be 1 or more, got ${n.value}`)))
        : Effect.succeed(n)
    )
  )
