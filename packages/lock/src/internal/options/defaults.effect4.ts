/**
 * App-wide lock defaults: the reference every acquisition reads, and how they are read from `Config`.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { LockOptions } from "../../Lock.js"
import type { LockConfigError } from "../../LockError.js"
import * as Options from "./options.js"

/** @internal */
export class LockDefaults extends Context.Reference<LockOptions>("@leasehold/lock/LockDefaults", {
  defaultValue: (): LockOptions => ({})
}) {}

/** @internal */
export const layerDefaults = (options: LockOptions): Layer.Layer<never> => Layer.succeed(LockDefaults, options)

/**
 * A duration from `Config`, kept as written: the options check reads it as every option is read, and says what is wrong
 * with it in the same words.
 */
const durationConfig = (key: string): Config.Config<Option.Option<Duration.Input>> =>
  Config.option(Config.map(Config.String(key), (value) => value.trim() as Duration.Input))

/** @internal */
export const defaultsConfig: Config.Config<LockOptions> = Config.all({
  lease: durationConfig("LEASEHOLD_LEASE"),
  heartbeat: durationConfig("LEASEHOLD_HEARTBEAT"),
  wait: Config.option(
    Config.orElse(
      Config.Literal("forever", "LEASEHOLD_WAIT"),
      () => Config.map(Config.String("LEASEHOLD_WAIT"), (value) => value.trim() as Duration.Input)
    )
  ),
  maxClockSkew: durationConfig("LEASEHOLD_MAX_CLOCK_SKEW"),
  warnAt: durationConfig("LEASEHOLD_WARN_AT"),
  safetyMargin: durationConfig("LEASEHOLD_SAFETY_MARGIN"),
  pollInterval: durationConfig("LEASEHOLD_POLL_INTERVAL"),
  takeover: Config.option(Config.Literals(["absolute", "observed"], "LEASEHOLD_TAKEOVER")),
  holder: Config.option(Config.String("LEASEHOLD_HOLDER"))
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
export const layerDefaultsConfig: Layer.Layer<never, Config.ConfigError | LockConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const options = yield* defaultsConfig
    yield* Effect.fromResult(Options.checkValues(options))
    return layerDefaults(options)
  })
)
