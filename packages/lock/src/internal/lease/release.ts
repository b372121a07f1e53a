/**
 * Giving a lease back when its scope closes. The release stops the borrowers first, then the keeper's fiber, then
 * releases in the store.
 *
 * - It does not wait for a renew in flight: it abandons it. A renew that the store applies after the release changes
 *   nothing, being conditional on an owner the release cleared; one applied before is released with the rest.
 * - It runs the core's plan (`@leasehold/core/lease/Release`): the caller waits for one release attempt at most;
 *   retries, and the whole release of a lease that was already lost, continue in the background, bounded and logged,
 *   and never keep a finished Node process alive.
 *
 * @internal
 */
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import * as Release from "@leasehold/core/lease/Release"
import type * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { LockStoreError } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import * as Background from "../process/background.js"
import * as LeaseUsers from "../process/leaseUsers.js"
import * as Metrics from "../process/metrics.js"
import { failureReason } from "./failureReason.js"
import * as LeaseState from "./leaseState.js"
import type * as LeaseStore from "./leaseStore.js"

/** The bound on each release attempt, the core's: its timer, and the words of a timeout. */
const attemptTimeout = Duration.millis(Release.attemptTimeoutMs)

/**
 * One line, without the cause's stack: a store that fails releases tends to fail many at once, and a stack per lease
 * would add to the load that made it fail.
 */
const logReleaseFailure = (state: LeaseState.LeaseState) => (cause: Cause.Cause<unknown>) =>
  Effect.andThen(
    Metrics.increment(Metrics.releaseFailures),
    Effect.logWarning(
      `releasing ${LeaseState.describe(state)} failed (${
        failureReason(cause, attemptTimeout)
      }); its lease will expire on its own`
    ).pipe(Effect.annotateLogs(LeaseState.annotations(state)))
  )

const reportReleased = (state: LeaseState.LeaseState) => (result: LockProtocol.ReleaseResult) =>
  result._tag === "Released" ? Effect.void : Effect.logInfo(
    `${LeaseState.describe(state)} was no longer ours at release (fence ${state.fence})`
  ).pipe(Effect.annotateLogs(LeaseState.annotations(state)))

const releaseSpan = (state: LeaseState.LeaseState, background: boolean) => ({
  attributes: {
    "lock.name": state.name,
    "lock.owner": state.owner,
    "lock.fence": state.fence,
    "lock.background": background
  }
})

const releaseCall = (state: LeaseState.LeaseState, store: LeaseStore.LeaseStore) =>
  store.release({ name: state.name, owner: state.owner, fence: state.fence })

/**
 * One release call, abandoned after `attemptTimeout` with a `TimeoutError`. The call runs in a fiber of its own
 * (interruptible: the release runs in a finalizer, which is not), and a timer fiber interrupts it if it has not
 * answered in time. The caller waits for the call alone, and stops the timer without waiting for it: `Effect.timeout`
 * would race the two, wait for the loser and merge the winner's fiber-local values back.
 */
const releaseAttempt = (
  state: LeaseState.LeaseState,
  store: LeaseStore.LeaseStore
): Effect.Effect<LockProtocol.ReleaseResult, LockStoreError | EffectLine.TimeoutError> =>
  Effect.flatMap(
    EffectLine.forkDetach(Effect.interruptible(releaseCall(state, store)), Background.startAtOnce),
    (call) => {
      let timedOut = false
      const expire = Effect.andThen(
        Effect.sleep(attemptTimeout),
        EffectLine.withFiber<void>((timer) =>
          Effect.sync(() => {
            timedOut = true
            EffectLine.interruptUnsafe(call, timer)
          })
        )
      )
      return Effect.flatMap(
        EffectLine.forkDetach(Effect.interruptible(expire), Background.startAtOnce),
        (timer) =>
          Effect.flatMap(Fiber.await(call), (exit): ReturnType<typeof releaseAttempt> => {
            EffectLine.interruptUnsafe(timer, call)
            return timedOut && Exit.isFailure(exit) && EffectLine.hasInterrupts(exit.cause)
              ? Effect.fail(new EffectLine.TimeoutError())
              : exit
          })
      )
    }
  )

/** `attempt`, and again after each of `delaysMs` while it fails (with a failure: not a defect or an interruption). */
const retried = <A, E>(attempt: Effect.Effect<A, E>, delaysMs: ReadonlyArray<number>): Effect.Effect<A, E> =>
  delaysMs.reduce(
    (tried, delayMs) =>
      Effect.catchIf(tried, () => true, () => Effect.andThen(Effect.sleep(Duration.millis(delayMs)), attempt)),
    attempt
  )

/**
 * Release attempts as background work, one at once and one after each of `retryDelaysMs`, bounded and logged: the
 * caller already has its answer, and a program that ends meanwhile does not wait for them either (see
 * `background.ts`).
 */
const releaseInBackground = (
  state: LeaseState.LeaseState,
  store: LeaseStore.LeaseStore,
  retryDelaysMs: ReadonlyArray<number>
) =>
  Effect.asVoid(Background.fork(
    retried(releaseAttempt(state, store), retryDelaysMs).pipe(
      Effect.matchCauseEffect({ onSuccess: reportReleased(state), onFailure: logReleaseFailure(state) }),
      EffectLine.withSpan(store.spans.release, releaseSpan(state, true))
    )
  ))

/** Runs the core's plan for this release (see `Release.plan` for why each runs as it does). */
const releaseInStore = (
  state: LeaseState.LeaseState,
  store: LeaseStore.LeaseStore,
  alreadyLost: boolean
): Effect.Effect<void> => {
  const plan = Release.plan({ answersAtOnce: store.answersAtOnce, alreadyLost })
  if (plan._tag === "Background") return releaseInBackground(state, store, plan.retryDelaysMs)
  const caller = plan._tag === "Once" ? releaseCall(state, store) : releaseAttempt(state, store)
  return caller.pipe(
    Effect.matchCauseEffect({
      onSuccess: reportReleased(state),
      onFailure: plan._tag === "Once"
        ? logReleaseFailure(state)
        : () => releaseInBackground(state, store, plan.retryDelaysMs)
    }),
    EffectLine.withSpan(store.spans.release, releaseSpan(state, false))
  )
}

/**
 * Ends the lease: stops its borrowers and its keeper's fiber, gives the lock back unless another owner took it, and
 * runs `onEnd`. Never fails; must run exactly once.
 *
 * @internal
 */
export const release = (
  state: LeaseState.LeaseState,
  store: LeaseStore.LeaseStore,
  keeper: EffectLine.Fiber<void> | undefined,
  onEnd: () => void
): Effect.Effect<void> =>
  Effect.gen(function*() {
    // A hand-off that began first decides: a lease handed off is for whoever resumes it to release; one lost while
    // being handed off is released as any lost lease (see handoff.ts).
    if (state.handOff !== undefined && (yield* Deferred.await(state.handOff))) return
    state.releasing = true
    // Borrowers first, while the lease is still kept alive: none of them may run once the lock is given back.
    yield* LeaseUsers.stopBorrowers(state.users, state)
    state.finished = true
    // A lease held under a session has no keeper of its own: the session's keeps it.
    if (keeper !== undefined) yield* Fiber.interrupt(keeper)
    const current = state.status.getUnsafe()
    // A lost lease is released when it may still be ours in the store (see `LeaseDeadline.releasesAfterLoss`).
    if (current._tag === "Lost") {
      if (LeaseDeadline.releasesAfterLoss(current.error.reason)) yield* releaseInStore(state, store, true)
    } else {
      yield* releaseInStore(state, store, false)
    }
    if (current._tag !== "Lost") {
      yield* LeaseState.recordHoldTime(state)
      yield* state.status.set({ _tag: "Released" })
    }
    onEnd()
  }).pipe(Effect.uninterruptible)
