/**
 * The leases a fiber is inside of on Effect 4, for re-entry: two lists, read together.
 *
 * - The fiber's own: the leases it entered itself (or took over as a region's guard, see `leaseGuard.ts`), kept in a
 *   map keyed by the fiber. Effect 4 keeps fiber-local values in the fiber's context, and `withSpan`, `provide`,
 *   `provideService`, `annotateLogs` and `withLogSpan` put the whole context back as they end; the map is outside the
 *   context, so a lease acquired inside such a wrapper is still re-entered by the fiber after it.
 * - The inherited one, in a `Context.Reference`: a fiber forked inside a lease's scope inherits it with the rest of its
 *   parent's context, so nested use of the same name re-enters. Effect 4 has no hook on fork: a fiber inherits what
 *   the context held when it was forked, so a sibling forked earlier never sees a lease entered after it, and a child
 *   forked after a wrapper that put the context back does not inherit the lease acquired inside that wrapper.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { adding, type Entry, find, type Held, without } from "./heldList.js"

export type { Entry } from "./heldList.js"

type AnyFiber = Fiber.Fiber<unknown, unknown>

const inherited = Context.Reference<Held | undefined>("@leasehold/lock/HeldLeases", { defaultValue: () => undefined })

/** Each fiber's own list; a fiber that has entered nothing has none, and an ended fiber's is collected with it. */
const own = new WeakMap<AnyFiber, Held>()

/** The live entry for `name` in `store` that the current fiber is inside, if any: its own first, most recent first. */
export const live = (store: object, name: string): Effect.Effect<Entry | undefined> =>
  Effect.withFiber((fiber) =>
    Effect.succeed(find(own.get(fiber as AnyFiber), store, name) ?? find(fiber.getRef(inherited), store, name))
  )

const setOwn = (fiber: AnyFiber, list: Held | undefined): void => {
  if (list === undefined) own.delete(fiber)
  else own.set(fiber, list)
}

/**
 * Marks the current fiber as inside `entry` until the enclosing scope closes, and the fibers it forks from now on. The
 * fiber's own list is put back then only if it still is the one this made; the scope may close in another fiber.
 */
export const enterScoped = (entry: Entry): Effect.Effect<void, never, Scope.Scope> =>
  Effect.withFiber((current) => {
    const fiber = current as AnyFiber
    const previous = own.get(fiber)
    const entered = adding(entry)(previous)
    own.set(fiber, entered)
    return Effect.andThen(
      Effect.addFinalizer(() => Effect.sync(() => own.get(fiber) === entered && setOwn(fiber, previous))),
      Effect.updateServiceScoped(inherited, adding(entry))
    )
  })

/** Runs `self` inside `entry`: a section, whose fiber is forked inside this and inherits it. */
export const enter = (entry: Entry) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateService(self, inherited, adding(entry))

/**
 * Puts `fiber` inside `entry` from now on, from outside it: the region's guard taking over a lease whose acquiring
 * fiber ended. With `forks`, the fibers it forks from now on inherit the lease too; the ones it forked before never do.
 */
export const adopt = (fiber: AnyFiber, entry: Entry, forks: boolean): void => {
  own.set(fiber, adding(entry)(own.get(fiber)))
  if (forks) fiber.setContext(Context.add(fiber.context, inherited, adding(entry)(fiber.getRef(inherited))))
}

/** Takes `entries` out of `fiber`'s own list: a region that ended no longer re-enters what it took over. */
export const forget = (fiber: AnyFiber, entries: ReadonlySet<Entry>): void =>
  setOwn(fiber, without(own.get(fiber), entries))

/**
 * Nothing: Effect 4 passes nothing back from a fiber, and a lease that a `Lock.scoped` region's fiber (`region.ts`)
 * acquired into a scope that outlives the region is refused by the region's guard as that fiber ends.
 */
export const takeOver = (_region: AnyFiber): Effect.Effect<void> => Effect.void

/**
 * Puts the current fiber inside the leases `parent` is inside: a `Lock.scoped` region's fiber (`region.ts`) relies on
 * the leases its parent entered itself as its parent did, where a fork inherits only those the context still holds.
 */
export const carry = (parent: AnyFiber): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const list = own.get(parent)
    if (list !== undefined) own.set(fiber as AnyFiber, list)
    return Effect.void
  })
