/**
 * The leases a fiber is inside of, for re-entry.
 *
 * Two lists, read together:
 *
 * - The fiber's own: the leases it entered itself (or took over as a region's guard, see `leaseGuard.ts`), kept in a
 *   map keyed by the fiber. Effect 4 keeps fiber-local values in the fiber's context, and `withSpan`, `provide`,
 *   `provideService`, `annotateLogs` and `withLogSpan` put the whole context back as they end; the map is outside the
 *   context, so a lease acquired inside such a wrapper is still re-entered by the fiber after it.
 * - The inherited one, in a `Context.Reference`: a fiber forked inside a lease's scope inherits it with the rest of its
 *   parent's context, so nested use of the same name re-enters. A fiber forked earlier (a sibling) was forked with the
 *   context of that moment and never sees a lease entered after it.
 *
 * Effect 4 has no hook on fork, so the inherited list is what the parent's context held when the child was forked:
 * a child forked after a wrapper that put the context back does not inherit the lease acquired inside that wrapper.
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

type AnyFiber = Fiber.Fiber<unknown, unknown>

const inherited = Context.Reference<Held | undefined>("@leasehold/lock/HeldLeases", {
  defaultValue: () => undefined
})

/** Each fiber's own list; a fiber that has entered nothing has none, and an ended fiber's is collected with it. */
const own = new WeakMap<AnyFiber, Held>()

const find = (list: Held | undefined, store: object, name: string): Entry | undefined => {
  for (let node = list; node !== undefined; node = node.next) {
    const entry = node.entry
    if (entry.store === store && entry.name === name && entry.isLive()) return entry
  }
  return undefined
}

/**
 * The live entry for `name` in `store` that the current fiber is inside, if any: its own first, most recent first.
 *
 * @internal
 */
export const live = (store: object, name: string): Effect.Effect<Entry | undefined> =>
  Effect.withFiber((fiber) =>
    Effect.succeed(find(own.get(fiber as AnyFiber), store, name) ?? find(fiber.getRef(inherited), store, name))
  )

/** The list with `entry` in front; ended leases at the front are dropped, the rest are skipped when read. */
const adding = (entry: Entry) => (list: Held | undefined): Held => {
  let rest = list
  while (rest !== undefined && !rest.entry.isLive()) rest = rest.next
  return { entry, next: rest }
}

const setOwn = (fiber: AnyFiber, list: Held | undefined): void => {
  if (list === undefined) own.delete(fiber)
  else own.set(fiber, list)
}

/**
 * Marks the current fiber as inside `entry` until the enclosing scope closes, and the fibers it forks from now on. The
 * fiber's own list is put back then only if it still is the one this made; the scope may close in another fiber.
 *
 * @internal
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

/**
 * Runs `self` inside `entry`: a section, whose fiber is forked inside this and inherits it.
 *
 * @internal
 */
export const enter = (entry: Entry) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateService(self, inherited, adding(entry))

/**
 * Puts `fiber` inside `entry` from now on, from outside it: the region's guard taking over a lease whose acquiring
 * fiber ended. With `forks`, the fibers it forks from now on inherit the lease too; the ones it forked before never do.
 *
 * @internal
 */
export const adopt = (fiber: AnyFiber, entry: Entry, forks: boolean): void => {
  own.set(fiber, adding(entry)(own.get(fiber)))
  if (forks) fiber.setContext(Context.add(fiber.context, inherited, adding(entry)(fiber.getRef(inherited))))
}

/**
 * Takes `entries` out of `fiber`'s own list: a region that ended no longer re-enters what it took over.
 *
 * @internal
 */
export const forget = (fiber: AnyFiber, entries: ReadonlySet<Entry>): void => {
  const kept: Array<Entry> = []
  for (let node = own.get(fiber); node !== undefined; node = node.next) {
    if (!entries.has(node.entry)) kept.push(node.entry)
  }
  let list: Held | undefined = undefined
  for (let index = kept.length - 1; index >= 0; index--) list = { entry: kept[index]!, next: list }
  setOwn(fiber, list)
}
