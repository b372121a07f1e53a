/**
 * What the leases a fiber is inside of are kept as, on both Effect lines: an entry per lease in an immutable list.
 * How a fiber gets its list and hands it on is each line's own (`heldLeases.ts`).
 *
 * Entries are never trusted to be current: a fiber keeps the list it inherited after the lease ended, so only a live
 * lease is ever re-entered, and an ended one stays in a list only until the scope that entered it closes.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
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
 *
 * @internal
 */
export interface Held {
  readonly entry: Entry
  readonly next: Held | undefined
}

/**
 * The live entry for `name` in `store` in `list`, the most recent one first.
 *
 * @internal
 */
export const find = (list: Held | undefined, store: object, name: string): Entry | undefined => {
  for (let node = list; node !== undefined; node = node.next) {
    const entry = node.entry
    if (entry.store === store && entry.name === name && entry.isLive()) return entry
  }
  return undefined
}

/**
 * The list with `entry` in front; ended leases at the front are dropped, the rest are skipped when read.
 *
 * @internal
 */
export const adding = (entry: Entry) => (list: Held | undefined): Held => {
  let rest = list
  while (rest !== undefined && !rest.entry.isLive()) rest = rest.next
  return { entry, next: rest }
}

/**
 * The entries of `list`.
 *
 * @internal
 */
export const entriesOf = (list: Held | undefined): Set<Entry> => {
  const entries = new Set<Entry>()
  for (let node = list; node !== undefined; node = node.next) entries.add(node.entry)
  return entries
}

/**
 * `list` without `entries`, in the same order.
 *
 * @internal
 */
export const without = (list: Held | undefined, entries: ReadonlySet<Entry>): Held | undefined => {
  const kept: Array<Entry> = []
  for (let node = list; node !== undefined; node = node.next) {
    if (!entries.has(node.entry)) kept.push(node.entry)
  }
  let rest: Held | undefined = undefined
  for (let index = kept.length - 1; index >= 0; index--) rest = { entry: kept[index]!, next: rest }
  return rest
}

/**
 * Watching the current fiber's end, for a lease it is about to acquire: where a region must take the lease over when
 * the fiber ends before it (`Lock.scoped` on Effect 4, `leaseGuard.ts`).
 *
 * @internal
 */
export interface EndWatch {
  /**
   * Hands `entry`, just acquired into the current scope, over when the fiber ends before the lease does: to the guard
   * of the region the acquire ran in while that region runs, or else to nobody, which is refused. Nothing happens if
   * the lease ends first. The watch ends with the scope.
   */
  readonly held: (entry: Entry) => Effect.Effect<void, never, Scope.Scope>
  /** Ends the watch: nothing was acquired to hand over. */
  readonly stop: () => void
}
