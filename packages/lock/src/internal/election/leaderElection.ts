/**
 * `LeaderElection.run`: campaign (a waiting `Lock.acquire`), run the leader's effect for the term in a fiber that the
 * loss of the lease interrupts, resign when it ends, and campaign again when the term is lost. Everything a term
 * guarantees is the lock's: this module only decides what follows the end of a term or of a campaign.
 *
 * A term runs in a fiber of its own because `Lock.acquire` interrupts the fiber that acquired the lease when the
 * lease is lost, and an interrupted fiber can not go on campaigning: the loop awaits the term's fiber (without
 * joining it, which would make the loop one of the lease's holders) and reads the end of the term from its exit and
 * from the lease's status.
 *
 * @internal
 */
import * as CampaignBackoff from "@leasehold/core/election/CampaignBackoff"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Random from "effect/Random"
import type * as LeaderElection from "../../LeaderElection.js"
import type { Lease } from "../../Lease.js"
import type { LockConfigError, LockNotAcquired, LockStoreError, LostReason } from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import * as Lock from "../lock/lock.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import * as ElectionOptions from "./leaderElectionOptions.js"

/** A campaign that ended without the lock: kept apart from the leader's own errors by its class. */
class CampaignFailed {
  constructor(readonly error: LockStoreError | LockNotAcquired) {}
}

/** What the loop learns when a term's fiber ends other than with the leader's value or error. */
type Ended =
  | { readonly _tag: "Lost"; readonly lease: Lease; readonly reason: LostReason }
  | { readonly _tag: "CampaignFailed"; readonly error: LockStoreError | LockNotAcquired }

const campaignFailure = (cause: Cause.Cause<unknown>): CampaignFailed | undefined =>
  EffectLine.failures(cause).find((error): error is CampaignFailed => error instanceof CampaignFailed)

const annotations = (lease: Lease) => ({ lock: lease.name, owner: lease.owner, fence: lease.fence })

/** The term's handle: the lease, and when it began on this process's clock. */
const termOf = (lease: Lease): Effect.Effect<LeaderElection.Term> =>
  Effect.map(Clock.currentTimeMillis, (now) => ({
    name: lease.name,
    owner: lease.owner,
    holder: lease.holder,
    fence: lease.fence,
    since: lease.record.acquiredAt ?? now,
    lease
  }))

/**
 * One campaign and, if it wins, one term, in the fiber that `run` forks for it. `elected` is told the lease as soon as
 * there is one.
 */
const campaignAndLead = <A, E, R>(
  name: string,
  leader: (term: LeaderElection.Term) => Effect.Effect<A, E, R>,
  resolved: ElectionOptions.ResolvedRun,
  elected: (lease: Lease) => void
): Effect.Effect<A, E | LockConfigError | CampaignFailed, R | LockStore> =>
  Effect.scoped(Effect.gen(function*() {
    // `elected` is told in the same uninterruptible step that ends the acquire: a loss can not interrupt the fiber
    // before the loop knows which lease it was.
    const lease = yield* Effect.uninterruptibleMask((restore) =>
      Effect.tap(restore(Lock.acquire(name, resolved.lockOptions)), (lease) => Effect.sync(() => elected(lease)))
    ).pipe(
      Effect.tap((lease) => Effect.annotateCurrentSpan({ "lock.owner": lease.owner, "lock.fence": lease.fence })),
      Effect.catchIf(
        (error): error is LockStoreError | LockNotAcquired => error._tag !== "LockConfigError",
        (error) => Effect.fail(new CampaignFailed(error))
      ),
      EffectLine.withSpan("LeaderElection.campaign", {
        attributes: { "lock.name": name, "lock.holder": resolved.lock.holder }
      })
    )
    const term = yield* termOf(lease)
    yield* Effect.logInfo(`elected leader of "${name}" (fence ${term.fence})`).pipe(
      Effect.annotateLogs(annotations(lease))
    )
    return yield* leader(term).pipe(
      EffectLine.withSpan("LeaderElection.term", {
        attributes: {
          "lock.name": name,
          "lock.owner": term.owner,
          "lock.fence": term.fence,
          "lock.holder": term.holder,
          "election.since": term.since
        }
      })
    )
  }))

/** Runs one campaign and term; succeeds with how it ended, unless the leader's effect ended it (its exit, as is). */
const oneTerm = <A, E, R>(
  name: string,
  leader: (term: LeaderElection.Term) => Effect.Effect<A, E, R>,
  resolved: ElectionOptions.ResolvedRun
): Effect.Effect<Exit.Exit<A, E | LockConfigError> | Ended, never, R | LockStore> =>
  Effect.gen(function*() {
    const term: { lease: Lease | undefined } = { lease: undefined }
    const fiber = yield* EffectLine.forkChild(
      campaignAndLead(name, leader, resolved, (elected) => term.lease = elected)
    )
    // Interrupted while campaigning or leading: the term's fiber resigns before `run` ends.
    const exit = yield* Effect.onInterrupt(Fiber.await(fiber), () =>
      Effect.andThen(
        Fiber.interrupt(fiber),
        term.lease === undefined ? Effect.void : Effect.logInfo(`resigned leadership of "${name}": interrupted`).pipe(
          Effect.annotateLogs(annotations(term.lease))
        )
      ))
    if (Exit.isSuccess(exit)) {
      if (term.lease !== undefined) {
        yield* Effect.logInfo(`resigned leadership of "${name}": the leader's effect completed`).pipe(
          Effect.annotateLogs(annotations(term.lease))
        )
      }
      return Exit.succeed(exit.value)
    }
    const failed = campaignFailure(exit.cause)
    if (failed !== undefined) return { _tag: "CampaignFailed", error: failed.error } as const
    const lease = term.lease
    if (lease !== undefined && EffectLine.hasInterruptsOnly(exit.cause)) {
      const status = yield* lease.status
      if (status._tag === "Lost") return { _tag: "Lost", lease, reason: status.error.reason } as const
    }
    // The leader's own failure, a defect, or an interruption that is not the loss of the lease.
    return exit as Exit.Exit<A, E | LockConfigError>
  })

/** @internal */
export const run = <A, E, R>(
  name: string,
  leader: (term: LeaderElection.Term) => Effect.Effect<A, E, R>,
  options?: LeaderElection.ElectionOptions
): Effect.Effect<A, E | LockStoreError | LockConfigError | LockNotAcquired, R | LockStore> =>
  Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store)
    const resolved = yield* ElectionOptions.resolveRun(yield* LockDefaults, options)
    let failures = 0
    while (true) {
      const ended = yield* oneTerm(validName, leader, resolved)
      if (Exit.isExit(ended)) {
        return yield* ended
      }
      if (ended._tag === "Lost") {
        failures = 0
        yield* Effect.logInfo(`leadership of "${validName}" lost (${ended.reason}); campaigning again`).pipe(
          Effect.annotateLogs(annotations(ended.lease))
        )
        continue
      }
      const error = ended.error
      if (error._tag === "LockNotAcquired" && error.session !== undefined) {
        // The lease session the campaign runs under is lost: no campaign under it can win again.
        yield* Effect.logWarning(
          `campaign for leadership of "${validName}" ended: its lease session ${error.session} is lost`
        ).pipe(Effect.annotateLogs({ lock: validName, session: error.session }))
        return yield* Effect.fail(error)
      }
      if (error._tag === "LockNotAcquired") {
        // A campaign waits forever, so the lock does not give up on it; should it ever, campaign again.
        yield* Effect.sleep(Duration.millis(resolved.lock.pollIntervalMs))
        continue
      }
      failures += 1
      if (CampaignBackoff.givesUp(failures, resolved.maxCampaignFailures)) {
        yield* Effect.logWarning(
          `campaign for leadership of "${validName}" failed (${error.message}); giving up after ${failures} ` +
            `failed campaigns in a row (maxCampaignFailures)`
        ).pipe(Effect.annotateLogs({ lock: validName, retryable: error.retryable }))
        return yield* Effect.fail(error)
      }
      const backoff = { maxBackoffMs: resolved.maxBackoffMs, pollIntervalMs: resolved.lock.pollIntervalMs }
      const delay = CampaignBackoff.backoffMs(backoff, failures, yield* Random.next)
      const bound = Number.isFinite(resolved.maxCampaignFailures) ? ` of at most ${resolved.maxCampaignFailures}` : ""
      yield* Effect.logWarning(
        `campaign for leadership of "${validName}" failed (${error.message}); campaigning again in ${delay} ms ` +
          `(failure ${failures}${bound} in a row)`
      ).pipe(Effect.annotateLogs({ lock: validName, retryable: error.retryable }))
      yield* Effect.sleep(Duration.millis(delay))
    }
  }).pipe(EffectLine.withSpan("LeaderElection.run", { attributes: { "lock.name": name } }))
