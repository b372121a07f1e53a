/**
 * App-wide lock defaults: the reference every acquisition reads, and how they are read from `Config`.
 *
 * @internal
 */
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { LockOptions } from "../../Lock.js"
import type { LockConfigError } from "../../LockError.js"
import * as Options from "./options.js"

/** @internal */
export class LockDefaults extends Context.Reference<LockDefaults>()("@leasehold/lock/LockDefaults", {
  defaultValue: (): LockOptions => ({})
}) {}

/** @internal */
export const layerDefaults = (options: LockOptions): Layer.Layer<LockDefaults> => Layer.succeed(LockDefaults, options)

/**
 * A duration from `Config`, kept as written: Effect's own `Config.duration` turns "-10 seconds" into zero, and the
 * options check must see the sign to refuse it.
 */
const durationConfig = (key: string): Config.Config<Option.Option<Duration.DurationInput>> =>
  Config.option(Config.map(Config.string(key), (value) => value.trim() as Duration.DurationInput))

/** @internal */
export const defaultsConfig: Config.Config<LockOptions> = Config.all({
  lease: durationConfig("LEASEHOLD_LEASE"),
  heartbeat: durationConfig("LEASEHOLD_HEARTBEAT"),
  wait: Config.option(
    Config.orElse(
      Config.literal("forever")("LEASEHOLD_WAIT"),
      () => Config.map(Config.string("LEASEHOLD_WAIT"), (value) => value.trim() as Duration.DurationInput)
    )
  ),
  maxClockSkew: durationConfig("LEASEHOLD_MAX_CLOCK_SKEW"),
  warnAt: durationConfig("LEASEHOLD_WARN_AT"),
  safetyMargin: durationConfig("LEASEHOLD_SAFETY_MARGIN"),
  pollInterval: durationConfig("LEASEHOLD_POLL_INTERVAL"),
  takeover: Config.option(Config.literal("absolute", "observed")("LEASEHOLD_TAKEOVER")),
  holder: Config.option(Config.string("LEASEHOLD_HOLDER"))
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
export const layerDefaultsConfig: Layer.Layer<LockDefaults, ConfigError.ConfigError | LockConfigError> = Layer
  .unwrapEffect(
    Effect.flatMap(defaultsConfig, (options) => Effect.as(Options.checkValues(options), layerDefaults(options)))
  )
