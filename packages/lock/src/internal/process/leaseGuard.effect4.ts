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
 * So the region names that fiber instead. `Lock.scoped` runs its code in a fiber of its own (`region.ts`, which turns
 * that fiber's interruption by a loss into `LockLost`), in `Effect.scoped` that also puts a guard in a reference: the
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
import type { EndWatch } from "./heldList.js"

type AnyFiber = Fiber.Fiber<unknown, unknown>

/** A lease whose acquiring fiber may end before it does: where it went when that fiber ended. */
interface Handover {
  readonly entry: HeldLeases.Entry
  /** The fiber that acquired it. */
  readonly acquirer: AnyFiber
  /** The scope the lease was acquired into, which releases it. */
  readonly scope: Scope.Scope
  /** Whether the fiber's end has been handled. */
  handled: boolean
  /** Why it was handed to nobody, if it was: the scope then fails with this when it closes. */
  refused: string | undefined
}

/** @internal */
export interface Guard {
  readonly fiber: AnyFiber
  /** Whether the region still runs; a guard never takes a lease over once it has ended. */
  open: boolean
  readonly adopted: Array<Handover>
  /** Leases acquired inside whose acquiring fiber has not been seen to end. */
  readonly pending: Set<Handover>
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
      const guard: Guard = { fiber: fiber as AnyFiber, open: true, adopted: [], pending: new Set() }
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
 * wrapper (nothing of the region runs as the acquiring fiber ends), or runs itself. When another fiber of the region
 * is running (the acquire ended at once, inside that fiber's step), the region's fiber may be busy elsewhere, forking
 * the other jobs of a concurrent `Effect.all` say, and those are siblings of the acquire.
 */
const takeOver = (guard: Guard, handover: Handover): void => {
  const { entry } = handover
  entry.users.holders.delete(handover.acquirer)
  entry.users.holders.add(guard.fiber)
  guard.adopted.push(handover)
  const running = Fiber.getCurrent()
  const goesOn = running === undefined || running === guard.fiber || running.getRef(currentGuard) !== guard
  HeldLeases.adopt(guard.fiber, entry, goesOn)
}

const unguarded = (name: string, guard: Guard | undefined): string =>
  `the fiber that acquired "${name}" ended while the lease is held, ` +
  (guard === undefined ? "outside Lock.scoped" : "after the Lock.scoped region it was forked in had ended") +
  ": a loss can not stop the " +
  "code that goes on under the lease (Effect.timeout, Effect.race, a concurrent Effect.all or a layer build around " +
  "the acquire). Run that code in Lock.scoped instead of Effect.scoped, or use Lock.withLock"

/** Where a lease goes as its acquiring fiber ends: to the guard of the region while it runs, or else to nobody. */
const ended = (guard: Guard | undefined, handover: Handover, log: (message: string) => void): void => {
  if (handover.handled) return
  handover.handled = true
  guard?.pending.delete(handover)
  if (!handover.entry.isLive()) return
  if (guard !== undefined && guard.open && guard.fiber !== handover.acquirer) return takeOver(guard, handover)
  handover.refused = unguarded(handover.entry.name, guard)
  log(handover.refused)
}

/**
 * Starts watching the current fiber's end before the acquire runs: whoever waits for the fiber (the wrapper, or a
 * `Fiber.join`) is told it ended only after the lease has gone where it belongs, as long as they began waiting after
 * the fiber started.
 *
 * @internal
 */
export const watchEnd: Effect.Effect<EndWatch> = Effect.withFiber((fiber) => {
  const acquirer = fiber as AnyFiber
  const guard = fiber.getRef(currentGuard)
  const context = fiber.context
  let handover: Handover | undefined
  const log = (message: string) => Effect.runForkWith(context)(Effect.logWarning(message))
  const stop = fiber.addObserver(() => {
    if (handover !== undefined) ended(guard, handover, log)
  })
  return Effect.succeed({
    stop,
    held: (entry) =>
      Effect.flatMap(Effect.scope, (scope) => {
        const watched: Handover = { entry, acquirer, scope, handled: false, refused: undefined }
        handover = watched
        // The region's own fiber never hands a lease over to itself: only what other fibers acquire waits for it.
        const region = guard !== undefined && guard.fiber !== acquirer ? guard : undefined
        region?.pending.add(watched)
        return Effect.addFinalizer(() =>
          Effect.suspend(() => {
            stop()
            region?.pending.delete(watched)
            return watched.refused === undefined ? Effect.void : Effect.die(new UnguardedLease(watched.refused))
          })
        )
      })
  })
})

/**
 * The live lease of `name` in `store` that the current fiber, a region's own, takes over now because the fiber that
 * acquired it has ended, though its end has not been handled yet (whoever waited for that fiber may run first).
 *
 * @internal
 */
export const settled = (store: object, name: string): Effect.Effect<HeldLeases.Entry | undefined> =>
  Effect.withFiber((fiber) => {
    const guard = fiber.getRef(currentGuard)
    if (guard === undefined || guard.fiber !== fiber || !guard.open) return Effect.succeed(undefined)
    for (const handover of guard.pending) {
      const { entry } = handover
      if (entry.store !== store || entry.name !== name || !entry.isLive()) continue
      if (handover.acquirer.pollUnsafe() === undefined) continue
      handover.handled = true
      guard.pending.delete(handover)
      takeOver(guard, handover)
      return Effect.succeed(entry)
    }
    return Effect.succeed(undefined)
  })
