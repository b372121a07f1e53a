/**
 * Turning user options into validated milliseconds, before any store call: the rules are the core's
 * (`LockOptions`); here, the `Duration` inputs read as milliseconds and the answers as `LockConfigError`.
 *
 * @internal
 */
import * as CoreOptions from "@leasehold/core/options/LockOptions"
import type * as OptionCheck from "@leasehold/core/options/OptionCheck"
import * as OptionsRecord from "@leasehold/core/options/OptionsRecord"
import * as LockName from "@leasehold/core/record/LockName"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { LockOptions } from "../../Lock.js"
import * as LockDuration from "../../LockDuration.js"
import { LockConfigError } from "../../LockError.js"
import type { LockStore } from "../../LockStore.js"

/**
 * What a caller may pass: the public options.
 *
 * @internal
 */
export type Input = LockOptions

/** @internal */
export type Resolved = CoreOptions.Resolved

/** @internal */
export const defaultLease = Duration.millis(CoreOptions.defaultLeaseMs)
/** @internal */
export const heartbeatsPerLease = CoreOptions.heartbeatsPerLease
/** @internal */
export const defaultMaxClockSkew = Duration.millis(CoreOptions.defaultMaxClockSkewMs)
/** @internal */
export const warnAtFraction = CoreOptions.warnAtFraction
/** @internal */
export const safetyMarginFraction = CoreOptions.safetyMarginFraction
/** @internal */
export const maxPollInterval = Duration.millis(CoreOptions.maxPollIntervalMs)

/**
 * The exact milliseconds of a duration input, as the core's checks read them.
 *
 * @internal
 */
export const readMillis = (input: Duration.Input): OptionCheck.OptionCheck<number> =>
  Result.match(LockDuration.toMillis(input), {
    onFailure: (problem) => ({ _tag: "Invalid", option: "", message: problem }),
    onSuccess: (millis) => ({ _tag: "Ok", value: millis })
  })

/**
 * A core check's answer as this line's `Result`, a refusal as `LockConfigError`.
 *
 * @internal
 */
export const toResult = <A>(checked: OptionCheck.OptionCheck<A>): Result.Result<A, LockConfigError> =>
  checked._tag === "Ok"
    ? Result.succeed(checked.value)
    : Result.fail(new LockConfigError({ option: checked.option, message: checked.message }))

/**
 * Options as a caller passed them, checked to be a record of options or `undefined` (the core's `OptionsRecord`):
 * `null` or any other value is a mistake to report, not "no options".
 *
 * @internal
 */
export const checkRecord = <A>(options: A): Result.Result<A, LockConfigError> =>
  toResult(OptionsRecord.check(options, "optional"))

/** How the app-wide defaults are named when they are not a record: `Lock.layerDefaults` takes any value. */
const defaultsArgument = "the app-wide lock defaults (Lock.layerDefaults)"

/**
 * The app-wide defaults checked to be a record, for a reader of one of their fields.
 *
 * @internal
 */
export const checkDefaults = (defaults: Input): Result.Result<Input, LockConfigError> =>
  toResult(OptionsRecord.check(defaults, "required", defaultsArgument))

/** Why the options of a call, or the app-wide defaults they go over, are not a record; `undefined` if both are. */
const recordsProblem = (defaults: unknown, options: unknown): string | undefined =>
  OptionsRecord.problem(options, "optional") ?? OptionsRecord.problem(defaults, "required", defaultsArgument)

const notRecords = (problem: string): LockConfigError =>
  new LockConfigError({ option: OptionsRecord.option, message: problem })

/**
 * `checkRecord` and `checkDefaults` at once.
 *
 * @internal
 */
export const checkRecords = <A>(defaults: Input, options: A): Result.Result<A, LockConfigError> => {
  const problem = recordsProblem(defaults, options)
  return problem === undefined ? Result.succeed(options) : Result.fail(notRecords(problem))
}

/**
 * Checks a lock (or semaphore) name against what the store can key (its `nameProblem`, which counts what its key
 * encoding adds); `kind` says which of the store's judges to ask.
 *
 * @internal
 */
export const validateName = (
  name: unknown,
  store: Pick<LockStore, "nameProblem" | "semaphoreNameProblem">,
  kind: "lock" | "semaphore" = "lock"
): Effect.Effect<string, LockConfigError> =>
  Effect.fromResult(toResult(
    LockName.check(
      name,
      kind,
      (value) => kind === "lock" ? store.nameProblem(value) : store.semaphoreNameProblem(value)
    )
  ))

/** The defaults objects already resolved on their own, with the holder name they were resolved with. */
const resolvedDefaults = new WeakMap<Input, { readonly holder: string; readonly resolved: Resolved }>()

const resolveInput = (input: Input, defaultHolder: string): Result.Result<Resolved, LockConfigError> =>
  toResult(CoreOptions.resolve(input, defaultHolder, readMillis))

/**
 * Validates `options` over `defaults` (field by field) and fills in the built-in defaults. Either that is not a record
 * (`null` included) is refused first: its fields would read as none given. Given options are resolved afresh on every
 * call: an options object may be reused with different values. Defaults alone (a call without options) are resolved
 * once per defaults object: they come from a layer, which hands the same object to every acquisition, and resolving
 * them again on each one would cost every uncontended acquire for nothing.
 *
 * @internal
 */
export const resolveResult = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): Result.Result<Resolved, LockConfigError> => {
  const problem = recordsProblem(defaults, options)
  if (problem !== undefined) return Result.fail(notRecords(problem))
  if (options !== undefined) return resolveInput(CoreOptions.overlay(defaults, options), defaultHolder)
  const cached = resolvedDefaults.get(defaults)
  if (cached !== undefined && cached.holder === defaultHolder) return Result.succeed(cached.resolved)
  const resolved = resolveInput(defaults, defaultHolder)
  if (Result.isSuccess(resolved)) resolvedDefaults.set(defaults, { holder: defaultHolder, resolved: resolved.success })
  return resolved
}

/**
 * `resolveResult` as an effect, evaluated when run.
 *
 * @internal
 */
export const resolve = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): Effect.Effect<Resolved, LockConfigError> =>
  Effect.suspend(() => Effect.fromResult(resolveResult(defaults, options, defaultHolder)))

/**
 * Checks each given value on its own (relations between them are checked when a lock is taken): for app-wide
 * defaults, so that a bad value fails at startup.
 *
 * @internal
 */
export const checkValues = (input: Input): Result.Result<void, LockConfigError> =>
  toResult(CoreOptions.checkValues(input, readMillis))
