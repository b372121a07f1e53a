/**
 * App-wide lock defaults: the reference every acquisition reads, and how they are read from `Config`.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { LockOptions } from "../../Lock.js"
import type { LockConfigError } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import * as Options from "./options.js"

/** @internal */
export class LockDefaults extends EffectLine.Reference<LockDefaults>()("@leasehold/lock/LockDefaults", {
  defaultValue: (): LockOptions => ({})
}) {}

/** @internal */
export const layerDefaults = (options: LockOptions): EffectLine.ReferenceLayer<LockDefaults> =>
  Layer.succeed(LockDefaults, options)

/**
 * A duration from `Config`, kept as written: the options check reads it as every option is read, and says what is wrong
 * with it in the same words (Effect 3's own `Config.duration` would turn "-10 seconds" into zero).
 */
const durationConfig = (key: string): Config.Config<Option.Option<EffectLine.DurationInput>> =>
  Config.option(Config.map(EffectLine.configString(key), (value) => value.trim() as EffectLine.DurationInput))

/** @internal */
export const defaultsConfig: Config.Config<LockOptions> = Config.all({
  lease: durationConfig("LEASEHOLD_LEASE"),
  heartbeat: durationConfig("LEASEHOLD_HEARTBEAT"),
  wait: Config.option(
    Config.orElse(
      EffectLine.configLiterals(["forever"], "LEASEHOLD_WAIT"),
      () => Config.map(EffectLine.configString("LEASEHOLD_WAIT"), (value) => value.trim() as EffectLine.DurationInput)
    )
  ),
  maxClockSkew: durationConfig("LEASEHOLD_MAX_CLOCK_SKEW"),
  warnAt: durationConfig("LEASEHOLD_WARN_AT"),
  safetyMargin: durationConfig("LEASEHOLD_SAFETY_MARGIN"),
  pollInterval: durationConfig("LEASEHOLD_POLL_INTERVAL"),
  takeover: Config.option(EffectLine.configLiterals(["absolute", "observed"], "LEASEHOLD_TAKEOVER")),
  holder: Config.option(EffectLine.configString("LEASEHOLD_HOLDER"))
}).pipe(
  Config.map((values): LockOptions => {
    const options: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(values) as Array<[string, Option.Option<unknown>]>) {
      if (Option.isSome(value)) options[key] = value.value
    }
    return options as LockOptions
  })
)

/** @internal */
export const layerDefaultsConfig: EffectLine.ReferenceLayer<LockDefaults, EffectLine.ConfigError | LockConfigError> =
  EffectLine.unwrapLayer(
    Effect.gen(function*() {
      const options = yield* defaultsConfig
      yield* Options.fromCheck(Options.checkValues(options))
      return layerDefaults(options)
    })
  )
