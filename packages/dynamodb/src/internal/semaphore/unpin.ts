/**
 * Removing a semaphore item's TTL pin once no holder under a lease session needs it (see `SemaphoreItem`), after a
 * write whose answer shows the item: one more conditional write, only when the last such holder has left.
 *
 * @internal
 */
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as LockExpressions from "@leasehold/core/dynamodb/LockExpressions"
import * as SemaphoreExpressions from "@leasehold/core/dynamodb/SemaphoreExpressions"
import * as SemaphoreItem from "@leasehold/core/dynamodb/SemaphoreItem"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as StoreContext from "../store/storeContext.js"

/**
 * Unpins `item` (decoded as `semaphore`) if its pin is stale. Never fails: a pin left behind only keeps an idle item
 * from expiring, until a later write removes it.
 *
 * @internal
 */
export const ifStale = (
  context: StoreContext.StoreContext,
  key: ItemMap,
  item: ItemMap,
  semaphore: SemaphoreRecord,
  clock: Clock.Clock
): Effect.Effect<void> => {
  if (!SemaphoreItem.hasStalePin(item, semaphore)) return Effect.void
  const ttl = LockExpressions.ttlAt(EffectLine.currentTimeMillisUnsafe(clock), context.ttlRetentionMs)
  return Effect.ignore(context.update(Calls.calls.unpinSemaphore, {
    TableName: context.tableName,
    Key: key,
    ...SemaphoreExpressions.unpin(semaphore.fence, ttl)
  }, clock))
}
