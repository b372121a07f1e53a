/**
 * The options of a leader election and of a leader watch, checked before any store call: the lock's options as
 * `Lock.acquire` will resolve them (with `wait: "forever"`), and the election's own.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as LeaderElection from "../LeaderElection.js"
import type { LockOptions } from "../Lock.js"
import * as LockDuration from "../LockDuration.js"
import { LockConfigError } from "../LockError.js"
import * as Options from "./options.js"
import { defaultHolder } from "./owner.js"

/**
 * A watcher reads the store once a second unless told otherwise: as often as a waiter polls at most.
 *
 * @internal
 */
export const defaultWatchPollIntervalMs = 1_000

/** @internal */
export interface ResolvedRun {
  /** What each campaign passes to `Lock.acquire`. */
  readonly lockOptions: LockOptions
  /** The same, as `Lock.acquire` resolves them over the app-wide defaults. */
  readonly lock: Options.Resolved
  readonly maxBackoffMs: number
  /** `Infinity` for "forever". */
  readonly maxCampaignFailures: number
}

/** @internal */
export interface ResolvedWatch {
  readonly pollIntervalMs: number
  readonly takeover: "absolute" | "observed"
}

const fail = (option: string, message: string) => Either.left(new LockConfigError({ option, message }))

/** A positive duration in whole milliseconds, within the platform's timer limit; `fallback` when not given. */
const positiveDuration = (
  option: string,
  input: unknown,
  fallback: number
): Either.Either<number, LockConfigError> => {
  if (input === undefined) return Either.right(fallback)
  const wanted = `a finite, positive duration of at most ${Options.maxDurationMs} ms`
  const exact = LockDuration.toMillis(input)
  if (Either.isLeft(exact)) {
    return fail(option, `${option} must be ${wanted}; got ${LockDuration.describe(input)}, which ${exact.left}`)
  }
  const millis = Math.round(exact.right)
  if (millis === 0) {
    return fail(
      option,
      `${option} must be ${wanted}; got ${LockDuration.describe(input)}, which is 0 in whole milliseconds`
    )
  }
  if (millis > Options.maxDurationMs) {
    return fail(option, `${option} must be ${wanted}; got ${LockDuration.describe(input)}`)
  }
  return Either.right(millis)
}

const campaignFailures = (input: unknown): Either.Either<number, LockConfigError> => {
  if (input === undefined || input === "forever") return Either.right(Infinity)
  if (typeof input === "number" && Number.isSafeInteger(input) && input >= 1) return Either.right(input)
  return fail(
    "maxCampaignFailures",
    `maxCampaignFailures must be a whole number of at least 1, or "forever"; got ${LockDuration.describe(input)}`
  )
}

/** The lock's options of a campaign: the caller's, without the election's own fields, waiting as long as it takes. */
const lockOptionsOf = (options: LeaderElection.ElectionOptions | undefined): LockOptions => {
  if (options === undefined) return { wait: "forever" }
  const { maxBackoff: _maxBackoff, maxCampaignFailures: _maxCampaignFailures, ...lock } = options
  return { ...lock, wait: "forever" }
}

/**
 * Resolves the options of `run` over the app-wide lock defaults, as every campaign's `Lock.acquire` will.
 *
 * @internal
 */
export const resolveRun = (
  defaults: LockOptions,
  options: LeaderElection.ElectionOptions | undefined
): Effect.Effect<ResolvedRun, LockConfigError> =>
  Effect.suspend(() =>
    Either.gen(function*() {
      const lockOptions = lockOptionsOf(options)
      const lock = yield* Options.resolveEither(defaults, lockOptions, defaultHolder)
      const maxBackoffMs = yield* positiveDuration("maxBackoff", options?.maxBackoff, lock.leaseMs)
      const maxCampaignFailures = yield* campaignFailures(options?.maxCampaignFailures)
      return { lockOptions, lock, maxBackoffMs, maxCampaignFailures }
    })
  )

/**
 * Resolves the options of `leader`; the takeover mode falls back to the app-wide lock defaults'.
 *
 * @internal
 */
export const resolveWatch = (
  defaults: LockOptions,
  options: LeaderElection.WatchOptions | undefined
): Effect.Effect<ResolvedWatch, LockConfigError> =>
  Effect.suspend(() =>
    Either.gen(function*() {
      const pollIntervalMs = yield* positiveDuration(
        "pollInterval",
        options?.pollInterval,
        defaultWatchPollIntervalMs
      )
      const takeover = options?.takeover ?? defaults.takeover ?? "absolute"
      if (takeover !== "absolute" && takeover !== "observed") {
        return yield* fail(
          "takeover",
          `takeover must be "absolute" or "observed"; got ${LockDuration.describe(takeover)}`
        )
      }
      return { pollIntervalMs, takeover }
    })
  )
