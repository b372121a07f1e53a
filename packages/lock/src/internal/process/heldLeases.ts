/**
 * The leases a fiber is inside of, for re-entry and for stopping whoever relies on a lease when it is lost.
 *
 * A fiber-local list: a fiber forked inside a lease's scope inherits it (so nested use of the same name re-enters),
 * and a fiber that joins a child takes over the leases the child acquired. That second part is what makes
 * `Effect.timeout(Lock.acquire(...))`, `Effect.race`, a concurrent `Effect.all` and a merged layer work: each runs the
 * acquire in a short-lived fiber and continues in the fiber that joined it, which is then the one to interrupt on
 * loss. Effect calls a `FiberRef`'s `join` in the joining fiber as it takes over the child's fiber-local values, which
 * is where such a fiber is registered as one of the lease's holders. This is the one place that depends on when
 * Effect runs `join`; the tests of each wrapper say whether it still holds.
 *
 * Entries are never trusted to be current: a fiber keeps the list it inherited after the lease ended, so only a live
 * lease is ever re-entered, and an ended one stays in a list only until the scope that entered it closes.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
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

const entriesOf = (held: Held | undefined): Set<Entry> => {
  const entries = new Set<Entry>()
  for (let node = held; node !== undefined; node = node.next) entries.add(node.entry)
  return entries
}

const registerJoiner = (parent: Held | undefined, child: Held | undefined): Held | undefined => {
  if (child !== undefined && child !== parent) {
    const joiner = Option.getOrUndefined(Fiber.getCurrentFiber())
    if (joiner !== undefined) {
      const inherited = entriesOf(parent)
      for (let node: Held | undefined = child; node !== undefined; node = node.next) {
        if (!inherited.has(node.entry) && node.entry.isLive()) node.entry.users.holders.add(joiner)
      }
    }
  }
  return child
}

const held = FiberRef.unsafeMake<Held | undefined>(undefined, { join: registerJoiner })

/**
 * The live entry for `name` in `store` that the current fiber is inside, if any: the most recent one first.
 *
 * @internal
 */
export const live = (store: object, name: string): Effect.Effect<Entry | undefined> =>
  Effect.map(FiberRef.get(held), (list) => {
    for (let node = list; node !== undefined; node = node.next) {
      const entry = node.entry
      if (entry.store === store && entry.name === name && entry.isLive()) return entry
    }
    return undefined
  })

/** The list with `entry` in front; ended leases at the front are dropped, the rest are skipped when read. */
const adding = (entry: Entry) => (list: Held | undefined): Held => {
  let rest = list
  while (rest !== undefined && !rest.entry.isLive()) rest = rest.next
  return { entry, next: rest }
}

/**
 * Marks the current fiber as inside `entry` until the enclosing scope closes. As `Effect.locallyScopedWith` does, the
 * list is put back only if the fiber that closes the scope still has the one this made; unlike it, the finalizer does
 * not keep a copy of all the fiber's fiber-local values for as long as the lease is held.
 *
 * @internal
 */
export const enterScoped = (entry: Entry): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.flatMap(FiberRef.get(held), (previous) => {
      const entered = adding(entry)(previous)
      return Effect.zipRight(
        FiberRef.set(held, entered),
        // The restoring effect is built when the scope closes: a held lease keeps one closure here.
        Scope.addFinalizerExit(
          scope,
          () => FiberRef.update(held, (current) => current === entered ? previous : current)
        )
      )
    }))

/**
 * `refs` without the leases: for a fiber that never enters one and should not keep the list alive.
 *
 * @internal
 */
export const forget = (refs: FiberRefs.FiberRefs): FiberRefs.FiberRefs => FiberRefs.delete(refs, held)

/**
 * Runs `self` inside `entry`.
 *
 * @internal
 */
export const enter = (entry: Entry) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locallyWith(self, held, adding(entry))
