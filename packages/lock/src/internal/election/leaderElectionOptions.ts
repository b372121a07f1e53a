/**
 * The options of a leader election and of a leader watch, checked before any store call: the lock's options as
 * `Lock.acquire` will resolve them (with `wait: "forever"`), and the election's own (the core's `ElectionOptions`).
 *
 * @internal
 */
import * as ElectionOptions from "@leasehold/core/options/ElectionOptions"
import * as OptionCheck from "@leasehold/core/options/OptionCheck"
import { defaultHolder } from "@leasehold/core/record/Owner"
import * as Effect from "effect/Effect"
import type * as LeaderElection from "../../LeaderElection.js"
import type { LockOptions } from "../../Lock.js"
import type { LockConfigError } from "../../LockError.js"
import * as Options from "../options/options.js"

/**
 * A watcher reads the store once a second unless told otherwise: as often as a waiter polls at most.
 *
 * @internal
 */
export const defaultWatchPollIntervalMs = ElectionOptions.defaultWatchPollIntervalMs

/** @internal */
export interface ResolvedRun extends ElectionOptions.ResolvedRun {
  /** What each campaign passes to `Lock.acquire`. */
  readonly lockOptions: LockOptions
  /** The same, as `Lock.acquire` resolves them over the app-wide defaults. */
  readonly lock: Options.Resolved
}

/** @internal */
export type ResolvedWatch = ElectionOptions.ResolvedWatch

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
    Options.fromCheck(Options.flatMapCheck(Options.checkRecords(defaults, options), (given) => {
      const lockOptions: LockOptions = ElectionOptions.lockOptionsOf(given)
      return Options.flatMapCheck(
        Options.resolveCheck(defaults, lockOptions, defaultHolder),
        (lock) =>
          Options.flatMapCheck(
            ElectionOptions.resolveRun(given, lock.leaseMs, Options.readMillis),
            ({ maxBackoffMs, maxCampaignFailures }) =>
              OptionCheck.ok({ lockOptions, lock, maxBackoffMs, maxCampaignFailures })
          )
      )
    }))
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
    Options.fromCheck(Options.flatMapCheck(
      Options.checkRecords(defaults, options),
      (given) => ElectionOptions.resolveWatch(given, defaults.takeover, Options.readMillis)
    ))
  )
