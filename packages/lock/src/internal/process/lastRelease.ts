/**
 * What this process's last release of a name left in the store, kept for its next acquire of that name: a process
 * that releases a contended lock and asks again at once learns, without a call, that someone's reservation now keeps
 * it out, and waits instead of sending a write the store would refuse (a write unit, and a read after it on a store
 * that does not return the holder). Only records with a reservation are kept, and each is taken once, so the map
 * holds names someone was waiting for when this process released them, at most `maxNames` of them.
 *
 * @internal
 */
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import type * as LockStore from "../../LockStore.js"

/** Names kept per store at most: a process that releases ever new contended names and never asks again forgets. */
const maxNames = 1_000

const byStore = new WeakMap<LockStore.LockStore, Map<string, LockRecord>>()

/**
 * Notes what a release of `name` in `store` left: a record with a reservation, or nothing to keep.
 *
 * @internal
 */
export const note = (store: LockStore.LockStore, name: string, record: LockRecord | undefined): void => {
  let names = byStore.get(store)
  if (record?.reservedBy === undefined) {
    names?.delete(name)
    return
  }
  if (names === undefined) {
    names = new Map()
    byStore.set(store, names)
  }
  if (names.size >= maxNames && !names.has(name)) names.clear()
  names.set(name, record)
}

/**
 * Takes what the last release of `name` in `store` left, if it carried a reservation.
 *
 * @internal
 */
export const take = (store: LockStore.LockStore, name: string): LockRecord | undefined => {
  const names = byStore.get(store)
  const record = names?.get(name)
  if (record !== undefined) names!.delete(name)
  return record
}
