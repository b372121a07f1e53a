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
 * So the region names that fiber instead. `Lock.scoped` is `Effect.scoped` that also puts its own fiber, the guard,
 * in a reference; every fiber forked inside inherits it. An acquire remembers the guard it ran under, and if its
 * fiber ends while the lease is held, the guard takes the lease over: it is interrupted when the lease is lost, and
 * it and the fibers it forks re-enter the lease. Without a guard the hand-over is logged as a warning, since then a
 * loss can not stop the code that goes on under the lease.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type * as HeldLeases from "./heldLeases.js"

/** @internal */
export interface Guard {
  readonly fiber: Fiber.Fiber<unknown, unknown>
  /** Live leases taken over from acquiring fibers that ended, most recent last: re-entered inside the region. */
  adopted: ReadonlyArray<HeldLeases.Entry>
}

const currentGuard = Context.Reference<Guard | undefined>("@leasehold/lock/LeaseGuard", {
  defaultValue: () => undefined
})

/**
 * Runs `self` in a scope, with the current fiber as the guard of the leases acquired inside.
 *
 * @internal
 */
export const scoped = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Scope.Scope>> =>
  Effect.withFiber((fiber) =>
    Effect.scoped(
      Effect.provideService(self, currentGuard, { fiber: fiber as Fiber.Fiber<unknown, unknown>, adopted: [] })
    )
  )

/**
 * The live leases the guard of the current region has taken over.
 *
 * @internal
 */
export const adopted = (fiber: Fiber.Fiber<unknown, unknown>): ReadonlyArray<HeldLeases.Entry> =>
  fiber.getRef(currentGuard)?.adopted ?? []

const takeOver = (guard: Guard, entry: HeldLeases.Entry, ended: Fiber.Fiber<unknown, unknown>): void => {
  entry.users.holders.delete(ended)
  entry.users.holders.add(guard.fiber)
  guard.adopted = [...guard.adopted.filter((adopted) => adopted.isLive()), entry]
}

const unguarded = (name: string): string =>
  `the fiber that acquired "${name}" ended while the lease is held, outside Lock.scoped: a loss can not stop the ` +
  "code that goes on under the lease (Effect.timeout, Effect.race, a concurrent Effect.all or a layer build around " +
  "the acquire). Run that code in Lock.scoped instead of Effect.scoped, or use Lock.withLock"

/**
 * Hands `entry`'s lease over when the current fiber, which acquired it, ends before the lease does: to the guard of
 * the region the acquire ran in, or, outside any, to nobody, with a warning. Nothing happens if the lease ends first.
 *
 * @internal
 */
export const handOverOnEnd = (entry: HeldLeases.Entry): Effect.Effect<void, never, Scope.Scope> =>
  Effect.withFiber((fiber) => {
    const acquirer = fiber as Fiber.Fiber<unknown, unknown>
    const guard = fiber.getRef(currentGuard)
    const context = fiber.context
    const stop = fiber.addObserver(() => {
      if (!entry.isLive()) return
      if (guard !== undefined && guard.fiber !== acquirer) return takeOver(guard, entry, acquirer)
      Effect.runForkWith(context)(Effect.logWarning(unguarded(entry.name)))
    })
    return Effect.addFinalizer(() => Effect.sync(stop))
  })
