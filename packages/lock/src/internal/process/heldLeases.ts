/**
 * The leases a fiber is inside of, on Effect 3: a fiber-local list (see `heldList.ts`) that a fiber forked inside a
 * lease's scope inherits, so that nested use of the same name re-enters.
 *
 * A fiber that joins a child also takes over the leases the child acquired: that is what makes
 * `Effect.timeout(Lock.acquire(...))`, `Effect.race`, a concurrent `Effect.all` and a merged layer work, each of which
 * runs the acquire in a short-lived fiber and goes on in the fiber that joined it, the one to interrupt on loss then.
 * Effect calls a `FiberRef`'s `join` in the joining fiber as it takes over the child's fiber-local values, and there
 * the joiner becomes one of the lease's holders. This is the one place that depends on when Effect runs `join`; the
 * tests of each wrapper say whether it still holds.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { adding, entriesOf, type Entry, find, type Held } from "./heldList.js"

export type { Entry } from "./heldList.js"

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

/** The live entry for `name` in `store` that the current fiber is inside, if any: the most recent one first. */
export const live = (store: object, name: string): Effect.Effect<Entry | undefined> =>
  Effect.map(FiberRef.get(held), (list) => find(list, store, name))

/**
 * Marks the current fiber as inside `entry` until the enclosing scope closes. As `Effect.locallyScopedWith` does, the
 * list is put back only if the fiber that closes the scope still has the one this made; unlike it, the finalizer does
 * not keep a copy of all the fiber's fiber-local values for as long as the lease is held.
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

/** `refs` without the leases: for a fiber that never enters one and should not keep the list alive. */
export const forget = (refs: FiberRefs.FiberRefs): FiberRefs.FiberRefs => FiberRefs.delete(refs, held)

/**
 * Runs `self` inside `entry`: a section, the whole of a fiber of its own (see `section.ts`), which nothing joins. The
 * list is set for the rest of that fiber and not put back: `Effect.locallyWith` would put it back in a fiber about to
 * end, a mask and a handful of operations on every acquire for nothing.
 */
export const enter = (entry: Entry) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.zipRight(FiberRef.update(held, adding(entry)), self)

/** A `Lock.scoped` region's fiber (`region.ts`) inherits the leases its parent is inside when it is forked. */
export const carry = (_parent: Fiber.RuntimeFiber<unknown, unknown>): Effect.Effect<void> => Effect.void

/**
 * The current fiber takes over what a `Lock.scoped` region's fiber (`region.ts`) leaves once its scope has closed, as
 * a fiber that joins it would: its fiber-local values, and with the join hook above the leases it acquired into a
 * scope that outlives the region, whose loss then interrupts the current fiber.
 */
export const takeOver = (region: Fiber.RuntimeFiber<unknown, unknown>): Effect.Effect<void> => Fiber.inheritAll(region)
