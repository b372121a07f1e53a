/**
 * What one process keeps per store instance: the local queues of its fibers waiting for a name. A store is pure
 * operations, so this lives here, found by the store instance the fibers use.
 *
 * @internal
 */
import type * as LockStore from "../../LockStore.js"
import * as LocalQueue from "./localQueue.js"

const byStore = new WeakMap<LockStore.LockStore, LocalQueue.LocalQueues>()

/**
 * The local queues of this process for `store`, made on first use.
 *
 * @internal
 */
export const queuesOf = (store: LockStore.LockStore): LocalQueue.LocalQueues => {
  let queues = byStore.get(store)
  if (queues === undefined) {
    queues = LocalQueue.make()
    byStore.set(store, queues)
  }
  return queues
}
