/**
 * `Lock.scoped`: a region whose code relies on the leases acquired inside it, and that fails with `LockLost` when one
 * of them stops that code.
 *
 * A lost lease interrupts the fibers that rely on it (`leaseUsers.ts`), and a fiber can not be un-interrupted: an
 * interrupted fiber's own program can only end interrupted. So the region runs its program in a fiber of its own, as
 * `withLock` runs its section, and the fiber that called it reads how the program ended:
 *
 * - Interrupted, and a lease stopped it (lost, handed off, or released under a re-entry): the region fails with that
 *   lease's `LockLost`, the first one if two stopped it. The region's fiber is the one that acquires in the region,
 *   the one that takes a wrapped acquire's lease over (Effect 3's join hook, Effect 4's guard: it is the guard's
 *   fiber), and the one that re-enters a lease held outside the region.
 * - The program had already ended when the lease stopped the fiber (while the region's scope closed): its own result,
 *   without the interruption.
 * - Interrupted otherwise, or the caller interrupted (its own interrupt, a timeout around the region): interrupted.
 * - Anything else, a finalizer's failure beside the interruption too: as it ended.
 *
 * The caller's fiber is never one of the region's leases' users while the region runs, so a loss never interrupts it
 * then. Once the region's scope has closed, the caller takes over what the region's fiber leaves, as a fiber that joins
 * it would (`HeldLeases.takeOver`): on Effect 3 its fiber-local values, and a lease it acquired into a scope that
 * outlives the region, which the caller then relies on; Effect 4 passes nothing back, and its guard refuses such a
 * lease. The fibers the program forks outlive the program as they would have outlived it in the caller's fiber: the
 * region's fiber waits for them (while the caller goes on) and ends with the caller, which interrupts them; a lease
 * that stops the region's fiber stops them too, as it stopped the program.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { LockLost } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import { startAtOnce } from "./background.js"
import * as HeldLeases from "./heldLeases.js"
import * as LeaseUsers from "./leaseUsers.js"

const interruptedOnly = <A, E>(exit: Exit.Exit<A, E>): boolean =>
  Exit.isFailure(exit) && EffectLine.hasInterruptsOnly(exit.cause)

/**
 * Runs `self` in a scope, in a fiber of its own that relies on the leases acquired inside, and fails with the
 * `LockLost` of a lease that stopped it.
 *
 * @internal
 */
export const scoped = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E | LockLost, Exclude<R, Scope.Scope>> =>
  Effect.uninterruptibleMask((restore) =>
    EffectLine.withFiber((caller) => {
      // The program's own result, before the scope closes: a loss while it closes does not replace it.
      let ended: Exit.Exit<A, E> | undefined
      const program = Effect.onExit(self, (exit) => Effect.sync(() => (ended = exit)))
      // How the program ended once its scope closed, told before the region's fiber waits for what it forked.
      const closed = EffectLine.deferredMakeUnsafe<Exit.Exit<A, E>>()
      const region = EffectLine.awaitingForks(Effect.andThen(
        HeldLeases.carry(caller),
        restore(EffectLine.scoped(program)).pipe(
          Effect.onExit((exit) => Effect.sync(() => EffectLine.deferredDoneUnsafe(closed, Exit.succeed(exit))))
        )
      ))
      return Effect.flatMap(EffectLine.forkChild(region, startAtOnce), (fiber) =>
        restore(Deferred.await(closed)).pipe(
          Effect.onInterrupt(() => Fiber.interrupt(fiber)),
          Effect.tap(() => HeldLeases.takeOver(fiber)),
          Effect.flatMap((exit): Effect.Effect<A, E | LockLost> => {
            if (Exit.isSuccess(exit) || !EffectLine.hasInterrupts(exit.cause)) return exit
            const lost = LeaseUsers.stoppedBy(fiber)
            if (lost === undefined) return exit
            if (ended !== undefined && !interruptedOnly(ended)) return ended
            return interruptedOnly(exit) ? Effect.fail(lost) : exit
          })
        ))
    })
  )
