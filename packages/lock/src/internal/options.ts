/**
 * Turning user options into validated milliseconds, before any store call.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { LockOptions } from "../Lock.js"
import { LockConfigError } from "../LockError.js"
import * as Utf8 from "./utf8.js"

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
/** The bound DESIGN.md assumes for clock differences between hosts that share a lock. */
export const defaultMaxClockSkew = Duration.seconds(10)
/** Warn when a third of the lease is left: one heartbeat late is normal, two is a problem worth reporting. */
export const warnAtFraction = 1 / 3
/** Stop the critical section a tenth of a lease early, to leave time for the interruption itself. */
export const safetyMarginFraction = 1 / 10
/** Waiters poll at most this often, and never slower than a tenth of the lease. */
export const maxPollInterval = Duration.seconds(1)

const fail = (option: string, message: string) => Either.left(new LockConfigError({ option, message }))

const describe = (value: unknown): string => {
  try {
    return typeof value === "string" ? JSON.stringify(value) : String(value)
  } catch {
    return typeof value
  }
}

/**
 * Decodes one duration option. `allowZero` is for options where zero means "none" (wait, skew, warning, margin).
 */
const duration = (
  option: string,
  input: Duration.DurationInput | undefined,
  fallback: Duration.Duration,
  allowZero: boolean
): Either.Either<number, LockConfigError> => {
  if (input === undefined) return Either.right(Math.round(Duration.toMillis(fallback)))
  // Effect clamps negative numbers to a zero duration; a negative input is a mistake to report, not to round.
  if (typeof input === "number" && input < 0) {
    return fail(option, `${option} must be ${allowZero ? "zero or positive" : "positive"}; got ${input}`)
  }
  const decoded = Duration.decodeUnknown(input)
  if (Option.isNone(decoded)) {
    return fail(option, `${option} must be a duration such as "30 seconds" or 30000 (ms); got ${describe(input)}`)
  }
  // Whole milliseconds: the store keeps integers, and timers that wake a fraction of a millisecond early would spin.
  const millis = Math.round(Duration.toMillis(decoded.value))
  if (!Number.isFinite(millis) || Number.isNaN(millis)) {
    return fail(option, `${option} must be finite; got ${describe(input)}`)
  }
  if (millis < 0 || (!allowZero && millis === 0)) {
    return fail(option, `${option} must be ${allowZero ? "zero or positive" : "positive"}; got ${describe(input)}`)
  }
  return Either.right(millis)
}

/**
 * Checks a lock name against the store's key budget.
 *
 * @internal
 */
export const validateName = (name: unknown, maxNameBytes: number): Effect.Effect<string, LockConfigError> => {
  if (typeof name !== "string" || name.length === 0) {
    return fail("name", `a lock name must be a non-empty string; got ${describe(name)}`)
  }
  if (!Utf8.fits(name, maxNameBytes)) {
    return fail(
      "name",
      `lock name is ${Utf8.byteLength(name)} bytes in UTF-8 but the store allows at most ${maxNameBytes} (after its ` +
        `prefix): "${name.slice(0, 40)}…"`
    )
  }
  return Effect.succeed(name)
}

/** Validates and fills in defaults. Relations are checked after every value is known. */
const resolveInput = (input: Input, defaultHolder: string): Either.Either<Resolved, LockConfigError> =>
  Either.gen(function*() {
    const leaseMs = yield* duration("lease", input.lease, defaultLease, false)
    const heartbeatMs = yield* duration(
      "heartbeat",
      input.heartbeat,
      Duration.millis(leaseMs / heartbeatsPerLease),
      false
    )
    const waitMs = input.wait === "forever"
      ? undefined
      : yield* duration("wait", input.wait, Duration.zero, true)
    const maxClockSkewMs = yield* duration("maxClockSkew", input.maxClockSkew, defaultMaxClockSkew, true)
    const warnAtMs = yield* duration("warnAt", input.warnAt, Duration.millis(leaseMs * warnAtFraction), true)
    const safetyMarginMs = yield* duration(
      "safetyMargin",
      input.safetyMargin,
      Duration.millis(leaseMs * safetyMarginFraction),
      true
    )
    const pollIntervalMs = yield* duration(
      "pollInterval",
      input.pollInterval,
      Duration.min(maxPollInterval, Duration.millis(leaseMs / 10)),
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
    if (warnAtMs >= leaseMs) {
      return yield* fail("warnAt", `warnAt (${warnAtMs} ms) must be less than lease (${leaseMs} ms)`)
    }
    const takeover = input.takeover ?? "absolute"
    if (takeover !== "absolute" && takeover !== "observed") {
      return yield* fail("takeover", `takeover must be "absolute" or "observed"; got ${describe(takeover)}`)
    }
    const holder = input.holder ?? defaultHolder
    if (typeof holder !== "string" || holder.length === 0) {
      return yield* fail("holder", `holder must be a non-empty string; got ${describe(holder)}`)
    }
    if (input.data !== undefined && typeof input.data !== "string") {
      return yield* fail("data", `data must be a string (encode it first, e.g. with Schema); got ${typeof input.data}`)
    }
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
      data: input.data
    }
  })

type Resolution = Either.Either<Resolved, LockConfigError>

/** Stands for "no options" in the cache, which needs an object key. */
const noOptions: Input = {}

/**
 * Resolutions by app-wide defaults, then by per-call options object. Most programs pass no options or one constant
 * object per call site, so an acquisition usually resolves nothing; objects made per call just miss the cache.
 */
const resolutions = new WeakMap<Input, WeakMap<Input, Resolution>>()

/**
 * Validates `options` over `defaults` (field by field) and fills in the built-in defaults.
 *
 * @internal
 */
export const resolve = (
  defaults: Input,
  options: Input | undefined,
  defaultHolder: string
): Effect.Effect<Resolved, LockConfigError> =>
  Effect.suspend(() => {
    const key = options ?? noOptions
    let byOptions = resolutions.get(defaults)
    if (byOptions === undefined) {
      byOptions = new WeakMap()
      resolutions.set(defaults, byOptions)
    }
    let resolution = byOptions.get(key)
    if (resolution === undefined) {
      resolution = resolveInput({ ...defaults, ...options }, defaultHolder)
      byOptions.set(key, resolution)
    }
    return resolution
  })
