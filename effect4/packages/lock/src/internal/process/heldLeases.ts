/**
 * The leases a fiber is inside of, for re-entry.
 *
 * A fiber-local list, kept in a `Context.Reference`: a fiber forked inside a lease's scope inherits it with the rest of
 * its parent's context (so nested use of the same name re-enters), and a lease's scope puts the list back as it was
 * when it closes.
 *
 * A lease that a fiber acquired and then ended with (an acquire wrapped in `Effect.timeout`, `race`, a concurrent `all`
 * or a layer build) is not in the list of the fiber that goes on: inside `Lock.scoped` that fiber, the region's guard,
 * takes it over and re-enters it with the fibers it forks (see `leaseGuard.ts`).
 *
 * A reference is part of the fiber's context, so `Effect.provideService` (or `provide`) around an acquire puts the
 * whole context back as it ends, this list with it: a fiber that acquired inside such a region and goes on under the
 * lease outside it does not re-enter it. `withLock`, and an acquire whose scope lies inside the region, are not
 * affected.
 *
 * Entries are never trusted to be current: a fiber keeps the list it inherited after the lease ended, so only a live
 * lease is ever re-entered, and an ended one stays in a list only until the scope that entered it closes.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as LeaseGuard from "./leaseGuard.js"
import type * as LeaseUsers from "./leaseUsers.js"

/** @internal */
export interface Entry {
  /** The store instance the lease is in: re-entry is per store and name. */
  readonly store: object
  readonly name: string
  readonly users: LeaseUsers.LeaseUsers
  /** Whether the lease is held (possibly at risk); released and lost leases are not re-entered. */
  readonly isLive: () => boolean
  /** The lease itself, handed back on re-entry. */
  readonly lease: unknown
}

/**
 * The entries, most recent first, as an immutable linked list: adding one shares the rest. A fiber that acquires many
 * leases into one scope keeps each previous list for its scope to restore, so copying the list on every acquire
 * would hold memory quadratic in the number of leases.
 */
interface Held {
  readonly entry: Entry
  readonly next: Held | undefined
}

const held = Context.Reference<Held | undefined>("@leasehold/lock/HeldLeases", { defaultValue: () => undefined })

const find = (list: Held | undefined, store: object, name: string): Entry | undefined => {
  for (let node = list; node !== undefined; node = node.next) {
    const entry = node.entry
    if (entry.store === store && entry.name === name && entry.isLive()) return entry
  }
  return undefined
}

const findAdopted = (fiber: Fiber.Fiber<unknown, unknown>, store: object, name: string): Entry | undefined => {
  const adopted = LeaseGuard.adopted(fiber)
  for (let index = adopted.length - 1; index >= 0; index--) {
    const entry = adopted[index]!
    if (entry.store === store && entry.name === name && entry.isLive()) return entry
  }
  return undefined
}

/**
 * The live entry for `name` in `store` that the current fiber is inside, if any: the most recent one first.
 *
 * @internal
 */
export const live = (store: object, name: string): Effect.Effect<Entry | undefined> =>
  Effect.withFiber((fiber) => Effect.succeed(find(fiber.getRef(held), store, name) ?? findAdopted(fiber, store, name)))

/** The list with `entry` in front; ended leases at the front are dropped, the rest are skipped when read. */
const adding = (entry: Entry) => (list: Held | undefined): Held => {
  let rest = list
  while (rest !== undefined && !rest.entry.isLive()) rest = rest.next
  return { entry, next: rest }
}

/**
 * Marks the current fiber as inside `entry` until the enclosing scope closes; the list is put back then only if the
 * fiber that closes the scope still has the one this made.
 *
 * @internal
 */
export const enterScoped = (entry: Entry): Effect.Effect<void, never, Scope.Scope> =>
  Effect.updateServiceScoped(held, adding(entry))

/**
 * Runs `self` inside `entry`.
 *
 * @internal
 */
export const enter = (entry: Entry) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateService(self, held, adding(entry))
