/**
 * Turning user options into validated milliseconds, before any store call.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { LockOptions } from "../Lock.js"
import * as LockDuration from "../LockDuration.js"
import { LockConfigError } from "../LockError.js"
import { payloadProblem } from "../LockRecord.js"
import type { LockStore } from "../LockStore.js"

/**
 * What a caller may pass: the public options.
 *
 * @internal
 */
export type Input = LockOptions

/** @internal */
export interface Resolved {
  readonly leaseMs: number
  readonly heartbeatMs: number
  /** `undefined`: wait forever. */
  readonly waitMs: number | undefined
  readonly maxClockSkewMs: number
  readonly warnAtMs: number
  readonly safetyMarginMs: number
  readonly pollIntervalMs: number
  readonly takeover: "absolute" | "observed"
  readonly holder: string
  readonly data: string | undefined
}

/** Long enough to ride out a GC pause or a slow store call; short enough that a crashed holder's work resumes soon. */
export const defaultLease = Duration.seconds(30)
/** Three chances to renew before the lease runs out. */
export const heartbeatsPerLease = 3
/** The bound assumed for clock differences between hosts that share a lock: NTP keeps hosts far closer. */
export const defaultMaxClockSkew = Duration.seconds(10)
/** Warn when a third of the lease is left: one heartbeat late is normal, two is a problem worth reporting. */
export const warnAtFraction = 1 / 3
/** Stop the critical section a tenth of a lease early, to leave time for the interruption itself. */
export const safetyMarginFraction = 1 / 10
/** Waiters poll at most this often, and never slower than a tenth of the lease. */
export const maxPollInterval = Duration.seconds(1)

/**
 * The longest duration any option may have: Node's timers (and Effect's live clock with them) treat a longer delay
 * as "never", so a lease or a wait beyond it would never renew or never end.
 *
 * @internal
 */
export const maxDurationMs = 2 ** 31 - 1

const fail = (option: string, message: string) => Either.left(new LockConfigError({ option, message }))

const describe = LockDuration.describe

/**
 * Decodes one duration option into whole milliseconds. `allowZero` is for options where zero means "none" (wait,
 * skew, warning, margin).
 */
const duration = (
  option: string,
  input: Duration.DurationInput | undefined,
  fallback: number,
  allowZero: boolean
): Either.Either<number, LockConfigError> => {
  if (input === undefined) return Either.right(Math.round(fallback))
  const wanted = `a finite, ${allowZero ? "non-negative" : "positive"} duration of at most ${maxDurationMs} ms`
  const exact = LockDuration.toMillis(input)
  if (Either.isLeft(exact)) {
    return fail(option, `${option} must be ${wanted}; got ${describe(input)}, which ${exact.left}`)
  }
  // Whole milliseconds: the store keeps integers, and timers that wake a fraction of a millisecond early would spin.
  const millis = Math.round(exact.right)
  if (millis === 0 && !allowZero) {
    return fail(
      option,
      `${option} must be ${wanted}; got ${describe(input)}, which is 0 in whole milliseconds (durations are whole ` +
        `milliseconds)`
    )
  }
  if (millis > maxDurationMs) {
    return fail(
      option,
      `${option} must be ${wanted} (about 24.8 days: the platform's timers wait no longer); got ${describe(input)}`
    )
  }
  return Either.right(millis)
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
): Effect.Effect<string, LockConfigError> => {
  if (typeof name !== "string") {
    return fail("name", `a ${kind} name must be a non-empty string; got ${describe(name)}`)
  }
  const problem = kind === "lock" ? store.nameProblem(name) : store.semaphoreNameProblem(name)
  return problem === undefined ? Effect.succeed(name) : fail("name", problem)
}

/** Validates and fills in defaults. Relations are checked after every value is known. */
const resolveInput = (input: Input, defaultHolder: string): Either.Either<Resolved, LockConfigError> =>
  Either.gen(function*() {
    const leaseMs = yield* duration("lease", input.lease, Duration.toMillis(defaultLease), false)
    const heartbeatMs = yield* duration("heartbeat", input.heartbeat, leaseMs / heartbeatsPerLease, false)
    const waitMs = input.wait === "forever"
      ? undefined
      : yield* duration("wait", input.wait, 0, true)
    const maxClockSkewMs = yield* duration(
      "maxClockSkew",
      input.maxClockSkew,
      Duration.toMillis(defaultMaxClockSkew),
      true
    )
    const safetyMarginMs = yield* duration("safetyMargin", input.safetyMargin, leaseMs * safetyMarginFraction, true)
    // The at-risk point is measured against the local deadline (lease - safetyMargin): never past it by default.
    const warnAtMs = yield* duration(
      "warnAt",
      input.warnAt,
      Math.min(leaseMs * warnAtFraction, (leaseMs - safetyMarginMs) / 2),
      true
    )
    const pollIntervalMs = yield* duration(
      "pollInterval",
      input.pollInterval,
      Math.min(Duration.toMillis(maxPollInterval), leaseMs / 10),
      false
    )
    if (safetyMarginMs >= leaseMs) {
      return yield* fail("safetyMargin", `safetyMargin (${safetyMarginMs} ms) must be less than lease (${leaseMs} ms)`)
    }
    if (heartbeatMs >= leaseMs) {
      return yield* fail("heartbeat", `heartbeat (${heartbeatMs} ms) must be less than lease (${leaseMs} ms)`)
    }
    if (heartbeatMs >= leaseMs - safetyMarginMs) {
      return yield* fail(
        "heartbeat",
        `heartbeat (${heartbeatMs} ms) must be less than lease minus safetyMargin (${leaseMs - safetyMarginMs} ms), ` +
          `or the lease would be lost before the first renew`
      )
    }
    if (warnAtMs >= leaseMs - safetyMarginMs) {
      return yield* fail(
        "warnAt",
        `warnAt (${warnAtMs} ms) must be less than lease minus safetyMargin (${leaseMs - safetyMarginMs} ms), the ` +
          `time a fresh lease has before its local deadline, or every lease would be at risk from the start`
      )
    }
    const takeover = input.takeover ?? "absolute"
    if (takeover !== "absolute" && takeover !== "observed") {
      return yield* fail("takeover", `takeover must be "absolute" or "observed"; got ${describe(takeover)}`)
    }
    const holder = input.holder ?? defaultHolder
    if (typeof holder !== "string" || holder.length === 0) {
      return yield* fail("holder", `holder must be a non-empty string; got ${describe(holder)}`)
    }
    const data = input.data
    const payload = payloadProblem({ holder, data })
    if (payload !== undefined) return yield* fail(payload.field, payload.message)
    return {
      leaseMs,
      heartbeatMs,
      waitMs,
      maxClockSkewMs,
      warnAtMs,
      safetyMarginMs,
      pollIntervalMs,
      takeover,
      holder,
      data
    }
  })

/** The fields of `options` that are given: `undefined` means "not given" and leaves the default in place. */
const overlay = (defaults: Input, options: Input | undefined): Input => {
  if (options === undefined) return defaults
  const merged: Record<string, unknown> = { ...defaults }
  for (const key in options) {
    const value = (options as Record<string, unknown>)[key]
    if (value !== undefined) merged[key] = value
  }
  return merged as Input
}

/** The defaults objects already resolved on their own, with the holder name they were resolved with. */
const resolvedDefaults = new WeakMap<Input, { readonly holder: string; readonly resolved: Resolved }>()

/**
 * Validates `options` over `defaults` (field by field) and fills in the built-in defaults. Given options are resolved
 * afresh on every call: an options object may be reused with different values. Defaults alone (a call without
 * options) are resolved once per defaults object: they come from a layer, which hands the same object to every
 * acquisition, and resolving them again on each one would cost every uncontended acquire for nothing.
 *
 * @internal
 */
export const resolveEither = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): Either.Either<Resolved, LockConfigError> => {
  if (options !== undefined) return resolveInput(overlay(defaults, options), defaultHolder)
  const cached = resolvedDefaults.get(defaults)
  if (cached !== undefined && cached.holder === defaultHolder) return Either.right(cached.resolved)
  const resolved = resolveInput(defaults, defaultHolder)
  if (Either.isRight(resolved)) resolvedDefaults.set(defaults, { holder: defaultHolder, resolved: resolved.right })
  return resolved
}

/**
 * `resolveEither` as an effect, evaluated when run.
 *
 * @internal
 */
export const resolve = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): Effect.Effect<Resolved, LockConfigError> => Effect.suspend(() => resolveEither(defaults, options, defaultHolder))

/**
 * Checks each given value on its own (relations between them are checked when a lock is taken): for app-wide
 * defaults, so that a bad value fails at startup.
 *
 * @internal
 */
export const checkValues = (input: Input): Either.Either<void, LockConfigError> =>
  Either.gen(function*() {
    for (const option of ["lease", "heartbeat", "pollInterval"] as const) {
      yield* duration(option, input[option], 1, false)
    }
    for (const option of ["maxClockSkew", "warnAt", "safetyMargin"] as const) {
      yield* duration(option, input[option], 0, true)
    }
    if (input.wait !== "forever") yield* duration("wait", input.wait, 0, true)
  })
