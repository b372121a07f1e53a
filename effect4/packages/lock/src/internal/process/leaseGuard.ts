/**
 * The region whose fiber relies on the leases acquired inside it: `Lock.scoped`.
 *
 * A lost lease interrupts the fibers that rely on it. That is the fiber that acquired it, as long as that fiber runs
 * the code that follows the acquire. When the acquire is wrapped (`Effect.timeout`, `Effect.race`, a concurrent
 * `Effect.all`, a layer build), the acquiring fiber is a child that ends with the lease still held, and the code that
 * goes on under the lease runs in the fiber that waited for it. Effect 3 finds that fiber through a fiber
 * reference's join hook. Effect 4 has no such hook and forks the children of `race` and `timeout` detached, so nothing
 * leads from the fiber that ended to the fiber that goes on.
 *
 * So the region names that fiber instead. `Lock.scoped` is `Effect.scoped` that also puts a guard in a reference: the
 * region's fiber and scope, and whether the region still runs. Every fiber forked inside inherits the reference, so
 * the guard says only where a fiber was forked, never which code it runs; who may use a lease the guard takes over is
 * therefore decided by the guard alone:
 *
 * - While the region runs, a lease whose acquiring fiber ends is taken over by the region's fiber: it is interrupted
 *   when the lease is lost, and it re-enters the lease, with the fibers it forks from then on. Fibers forked before
 *   (siblings of the acquire) do not: they wait for the lock like anyone else.
 * - The guard ends with the region, before its scope closes: a lease whose fiber ends after that is not taken over.
 * - A lease taken over whose own scope is not the region's (one that the region's scope does not close) may be kept
 *   by code the region does not run, a fiber forked detached inside it. If the region ends while that scope is still
 *   open, the guard hands the lease back to nobody and says so.
 *
 * Outside any region, nothing can stop the code that goes on under a wrapped acquire's lease when it is lost. That
 * shape is refused: a warning as the acquiring fiber ends, and the scope the lease was acquired into fails with a
 * defect when it closes, so the program never completes as if it had held the lock safely.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as HeldLeases from "./heldLeases.js"

type AnyFiber = Fiber.Fiber<unknown, unknown>

/** A lease whose acquiring fiber may end before it does: where it went when that fiber ended. */
interface Handover {
  readonly entry: HeldLeases.Entry
  /** The scope the lease was acquired into, which releases it. */
  readonly scope: Scope.Scope
  /** Why it was handed to nobody, if it was: the scope then fails with this when it closes. */
  refused: string | undefined
}

/** @internal */
export interface Guard {
  readonly fiber: AnyFiber
  /** Whether the region still runs; a guard never takes a lease over once it has ended. */
  open: boolean
  readonly adopted: Array<Handover>
}

const currentGuard = Context.Reference<Guard | undefined>("@leasehold/lock/LeaseGuard", {
  defaultValue: () => undefined
})

/**
 * What a scope fails with when it closes after one of its leases was handed to nobody: the code that went on under
 * that lease could not have been stopped had it been lost.
 *
 * @internal
 */
export class UnguardedLease extends Error {
  override readonly name = "UnguardedLease"
}

const escaped = (name: string): string =>
  `the lease of "${name}" was taken over by a Lock.scoped region that has ended, and the scope it was acquired into ` +
  "is still open: code outside the region (a fiber forked detached inside it) may still rely on it, and a loss can " +
  "not stop that code. Acquire it in a Lock.scoped region of that code's own"

/**
 * After the region's scope has closed: what the region took over is no longer its own, and a lease whose scope is still
 * open then was kept by code the region did not run. Its holder is no longer the region's fiber, and it is refused.
 */
const release = (guard: Guard): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (guard.adopted.length === 0) return Effect.void
    const entries = new Set<HeldLeases.Entry>()
    const warnings: Array<Effect.Effect<void>> = []
    for (const handover of guard.adopted) {
      const { entry, scope } = handover
      entries.add(entry)
      if (scope.state._tag === "Closed") continue
      entry.users.holders.delete(guard.fiber)
      handover.refused = escaped(entry.name)
      warnings.push(Effect.logWarning(handover.refused))
    }
    HeldLeases.forget(guard.fiber, entries)
    return Effect.all(warnings, { discard: true })
  })

/**
 * Runs `self` in a scope, with the current fiber as the guard of the leases acquired inside.
 *
 * @internal
 */
export const scoped = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Scope.Scope>> =>
  Effect.withFiber((fiber) =>
    Effect.suspend(() => {
      const guard: Guard = { fiber: fiber as AnyFiber, open: true, adopted: [] }
      // The first finalizer runs last, once everything else the region's scope closes has closed.
      return Effect.scoped(Effect.andThen(
        Effect.addFinalizer(() => release(guard)),
        Effect.provideService(self, currentGuard, guard).pipe(
          Effect.onExit(() => Effect.sync(() => (guard.open = false)))
        )
      ))
    })
  )

/**
 * The region's fiber takes the lease over: it is interrupted on loss and re-enters the lease. The fibers it forks
 * from then on inherit the lease only if it is the one that goes on with the acquire's result: when it waited for the
 * wrapper (nothing runs as the acquiring fiber ends), or ran it itself. When another fiber of the region is running
 * (the acquire ended at once, inside that fiber's step), the region's fiber is still busy elsewhere, forking the
 * other jobs of a concurrent `Effect.all` say, and those are siblings of the acquire.
 */
const takeOver = (guard: Guard, handover: Handover, ended: AnyFiber): void => {
  const { entry } = handover
  entry.users.holders.delete(ended)
  entry.users.holders.add(guard.fiber)
  guard.adopted.push(handover)
  const running = Fiber.getCurrent()
  HeldLeases.adopt(guard.fiber, entry, running === undefined || running === guard.fiber)
}

const unguarded = (name: string): string =>
  `the fiber that acquired "${name}" ended while the lease is held, outside Lock.scoped: a loss can not stop the ` +
  "code that goes on under the lease (Effect.timeout, Effect.race, a concurrent Effect.all or a layer build around " +
  "the acquire). Run that code in Lock.scoped instead of Effect.scoped, or use Lock.withLock"

/**
 * Hands `entry`'s lease over when the current fiber, which acquired it into the current scope, ends before the lease
 * does: to the guard of the region the acquire ran in while that region runs, or else to nobody, which is refused.
 * Nothing happens if the lease ends first.
 *
 * @internal
 */
export const handOverOnEnd = (entry: HeldLeases.Entry): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.withFiber((fiber) => {
      const acquirer = fiber as AnyFiber
      const guard = fiber.getRef(currentGuard)
      const context = fiber.context
      const handover: Handover = { entry, scope, refused: undefined }
      const stop = fiber.addObserver(() => {
        if (!entry.isLive()) return
        if (guard !== undefined && guard.open && guard.fiber !== acquirer) return takeOver(guard, handover, acquirer)
        handover.refused = unguarded(entry.name)
        Effect.runForkWith(context)(Effect.logWarning(handover.refused))
      })
      return Effect.addFinalizer(() =>
        Effect.suspend(() => {
          stop()
          return handover.refused === undefined ? Effect.void : Effect.die(new UnguardedLease(handover.refused))
        })
      )
    }))
