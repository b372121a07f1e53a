/**
 * Handing a held lease over: this process stops keeping it without releasing it, stops relying on it, and turns it
 * into a `LeaseHandoff` value, which `resume.ts` turns back into a held lease in another process.
 *
 * - The heartbeat stops at its next step. A renew in flight is waited for, not abandoned: the store could apply an
 *   abandoned renew after the resume's write, and it would set `leaseUntil` from this host's clock, possibly behind
 *   the resumer's, below what the resumed lease's local deadline relies on. Once the value exists, no write of this
 *   process is in flight. The wait is bounded by the deadline, at which the watchdog declares the loss.
 * - The value's `leaseUntil` is the local deadline plus the safety margin (when the lease runs out as last renewed,
 *   counted from just before that renew was sent), on the wall clock as it reads now: never later than the store's.
 * - From the start the lease is no longer entered, and nothing renews it. Once handed off, its status is `HandedOff`,
 *   every other fiber of this process that relies on it (holders and borrowers, as on a loss) is interrupted, the
 *   process's queue for the name moves on, and the release at the scope's close writes nothing. The calling fiber is
 *   not interrupted: it is the one handing the lease over.
 * - A lease lost meanwhile is not handed off: the caller gets the loss, and the release ends it as any lost lease.
 *
 * @internal
 */
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { Lease, LeaseStatus } from "../../Lease.js"
import type { LeaseHandoff } from "../../LeaseHandoff.js"
import { LockLost } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import * as LeaseState from "../lease/leaseState.js"
import { monotonicMillis } from "../process/clock.js"
import * as LeaseUsers from "../process/leaseUsers.js"

const handedOff: LeaseStatus = { _tag: "HandedOff" }

const notHeld = (state: LeaseState.LeaseState, reason: "released" | "handedOff") =>
  new LockLost({ name: state.name, owner: state.owner, fence: state.fence, reason, by: undefined })

/**
 * Stops the keeper's fiber: at once if it sleeps, after the answer if a renew is in flight; with how it ended (Effect
 * 4's `Fiber.interrupt` does not say).
 */
const stopKeeper = (state: LeaseState.LeaseState, keeper: EffectLine.Fiber<void> | undefined) =>
  keeper === undefined
    ? Effect.succeed(Exit.void)
    : state.renewing
    ? Fiber.await(keeper)
    : Effect.andThen(Fiber.interrupt(keeper), Fiber.await(keeper))

/**
 * Hands the lease off. Uninterruptible: once the keeper has stopped, only the end of the hand-off can say who ends
 * the lease. Fails with the loss if the lease was lost (before or while handing off), and with reason `released` or
 * `handedOff` if it was no longer held here.
 *
 * @internal
 */
export const handOff = (
  state: LeaseState.LeaseState,
  lease: Lease,
  keeper: EffectLine.Fiber<void> | undefined,
  safetyMarginMs: number,
  leaseMs: number,
  onEnd: () => void
): Effect.Effect<LeaseHandoff, LockLost> =>
  Effect.suspend((): Effect.Effect<LeaseHandoff, LockLost> => {
    const before = state.status.getUnsafe()
    if (before._tag === "Lost") return Effect.fail(before.error)
    if (state.handOff !== undefined || before._tag === "HandedOff") return Effect.fail(notHeld(state, "handedOff"))
    if (state.releasing || state.finished || before._tag === "Released") return Effect.fail(notHeld(state, "released"))
    const settled = EffectLine.deferredMakeUnsafe<boolean>()
    state.handOff = settled
    const notHandedOff = (error: LockLost) => {
      EffectLine.deferredDoneUnsafe(settled, Exit.succeed(false))
      return Effect.fail(error)
    }
    return Effect.flatMap(stopKeeper(state, keeper), (exit) =>
      Effect.gen(function*() {
        const now = yield* monotonicMillis
        // Lost while a renew was in flight; or the keeper died, or the deadline passed before it could say so.
        const died = Exit.isFailure(exit) && !EffectLine.hasInterrupts(exit.cause)
        if (LeaseDeadline.isPast(state.deadline, now) || died) {
          yield* LeaseState.declareLost(state, "expired", undefined)
        }
        const after = state.status.getUnsafe()
        if (after._tag === "Lost") return yield* notHandedOff(after.error)
        state.finished = true
        const wallNow = yield* Clock.currentTimeMillis
        const leaseUntil = LeaseDeadline.wallLeaseUntil(state.deadline, safetyMarginMs, now, wallNow)
        yield* LeaseState.recordHoldTime(state)
        yield* state.status.set(handedOff)
        EffectLine.deferredDoneUnsafe(settled, Exit.succeed(true))
        yield* LeaseUsers.interruptOnLoss(state.users, notHeld(state, "handedOff"))
        onEnd()
        return {
          _tag: "LeaseHandoff",
          name: state.name,
          owner: state.owner,
          fence: state.fence,
          holder: lease.holder,
          leaseMs,
          leaseUntil
        } satisfies LeaseHandoff
      }))
  }).pipe(
    Effect.uninterruptible,
    EffectLine.withSpan("Lock.handOff", {
      attributes: { "lock.name": state.name, "lock.owner": state.owner, "lock.fence": state.fence }
    })
  )
