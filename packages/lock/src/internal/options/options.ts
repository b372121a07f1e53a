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
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { LockOptions } from "../../Lock.js"
import { LockConfigError } from "../../LockError.js"
import type { LockStore } from "../../LockStore.js"
import type * as EffectLine from "../effectLine.js"
import * as Durations from "./durations.js"

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
export const readMillis = (input: EffectLine.DurationInput): OptionCheck.OptionCheck<number> => {
  const millis = Durations.millisOf(input)
  return millis._tag === "Ok" ? millis : { _tag: "Invalid", option: "", message: millis.message }
}

/**
 * A core check's answer as an effect, a refusal as `LockConfigError`.
 *
 * @internal
 */
export const fromCheck = <A>(checked: OptionCheck.OptionCheck<A>): Effect.Effect<A, LockConfigError> =>
  checked._tag === "Ok"
    ? Effect.succeed(checked.value)
    : Effect.fail(new LockConfigError({ option: checked.option, message: checked.message }))

/**
 * The next check, once `checked` has passed.
 *
 * @internal
 */
export const flatMapCheck = <A, B>(
  checked: OptionCheck.OptionCheck<A>,
  f: (value: A) => OptionCheck.OptionCheck<B>
): OptionCheck.OptionCheck<B> => checked._tag === "Ok" ? f(checked.value) : checked

/**
 * Options as a caller passed them, checked to be a record of options or `undefined` (the core's `OptionsRecord`):
 * `null` or any other value is a mistake to report, not "no options".
 *
 * @internal
 */
export const checkRecord = <A>(options: A): OptionCheck.OptionCheck<A> => OptionsRecord.check(options, "optional")

/** How the app-wide defaults are named when they are not a record: `Lock.layerDefaults` takes any value. */
const defaultsArgument = "the app-wide lock defaults (Lock.layerDefaults)"

/**
 * The app-wide defaults checked to be a record, for a reader of one of their fields.
 *
 * @internal
 */
export const checkDefaults = (defaults: Input): OptionCheck.OptionCheck<Input> =>
  OptionsRecord.check(defaults, "required", defaultsArgument)

/** Why the options of a call, or the app-wide defaults they go over, are not a record; `undefined` if both are. */
const recordsProblem = (defaults: unknown, options: unknown): string | undefined =>
  OptionsRecord.problem(options, "optional") ?? OptionsRecord.problem(defaults, "required", defaultsArgument)

const notRecords = (problem: string): OptionCheck.OptionCheck<never> => ({
  _tag: "Invalid",
  option: OptionsRecord.option,
  message: problem
})

/**
 * `checkRecord` and `checkDefaults` at once.
 *
 * @internal
 */
export const checkRecords = <A>(defaults: Input, options: A): OptionCheck.OptionCheck<A> => {
  const problem = recordsProblem(defaults, options)
  return problem === undefined ? { _tag: "Ok", value: options } : notRecords(problem)
}

/**
 * Checks a lock (or semaphore) name against what the store can key (its `nameProblem`, which counts what its key
 * encoding adds); `kind` says which of the store's judges to ask. A lock may not take a name of a lease session's
 * record (`LeaseSession.recordNamePrefix`).
 *
 * @internal
 */
export const validateName = (
  name: unknown,
  store: Pick<LockStore, "nameProblem" | "semaphoreNameProblem">,
  kind: "lock" | "semaphore" = "lock"
): Effect.Effect<string, LockConfigError> =>
  fromCheck(
    LockName.check(
      name,
      kind,
      (value) =>
        kind === "lock"
          ? LeaseSession.lockNameProblem(value) ?? store.nameProblem(value)
          : store.semaphoreNameProblem(value)
    )
  )

/** The defaults objects already resolved on their own, with the holder name they were resolved with. */
const resolvedDefaults = new WeakMap<Input, { readonly holder: string; readonly resolved: Resolved }>()

const resolveInput = (input: Input, defaultHolder: string): OptionCheck.OptionCheck<Resolved> =>
  CoreOptions.resolve(input, defaultHolder, readMillis)

/**
 * Validates `options` over `defaults` (field by field) and fills in the built-in defaults. Either that is not a record
 * (`null` included) is refused first: its fields would read as none given. Given options are resolved afresh on every
 * call: an options object may be reused with different values. Defaults alone (a call without options) are resolved
 * once per defaults object: they come from a layer, which hands the same object to every acquisition, and resolving
 * them again on each one would cost every uncontended acquire for nothing.
 *
 * @internal
 */
export const resolveCheck = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): OptionCheck.OptionCheck<Resolved> => {
  const problem = recordsProblem(defaults, options)
  if (problem !== undefined) return notRecords(problem)
  if (options !== undefined) return resolveInput(CoreOptions.overlay(defaults, options), defaultHolder)
  const cached = resolvedDefaults.get(defaults)
  if (cached !== undefined && cached.holder === defaultHolder) return { _tag: "Ok", value: cached.resolved }
  const resolved = resolveInput(defaults, defaultHolder)
  if (resolved._tag === "Ok") resolvedDefaults.set(defaults, { holder: defaultHolder, resolved: resolved.value })
  return resolved
}

/**
 * `resolveCheck` as an effect, evaluated when run.
 *
 * @internal
 */
export const resolve = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): Effect.Effect<Resolved, LockConfigError> =>
  Effect.suspend(() => fromCheck(resolveCheck(defaults, options, defaultHolder)))

/**
 * Checks each given value on its own (relations between them are checked when a lock is taken): for app-wide
 * defaults, so that a bad value fails at startup.
 *
 * @internal
 */
export const checkValues = (input: Input): OptionCheck.OptionCheck<void> => CoreOptions.checkValues(input, readMillis)
