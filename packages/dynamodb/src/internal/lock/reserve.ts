/**
 * `reserve`: one conditional write that records a waiting acquisition as the next holder of a lock's row, unless
 * someone else's reservation is live and began to wait no later. It touches neither the holder fields nor the
 * version.
 *
 * @internal
 */
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as LockRequests from "@leasehold/core/dynamodb/LockRequests"
import type { LockStoreError } from "@leasehold/lock/LockError"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as StoreContext from "../store/storeContext.js"

/** @internal */
export const make = (context: StoreContext.StoreContext): LockStore.LockStore["reserve"] => {
  const { tableName } = context
  return (request) =>
    context.keyed("reserve", request.name, (key, clock) =>
      Effect.flatMap(
        context.update(Calls.calls.reserve, {
          TableName: tableName,
          Key: key,
          ...LockRequests.reserve(request, EffectLine.currentTimeMillisUnsafe(clock)),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReserveResult, LockStoreError> =>
          response._tag === "Ok"
            ? Effect.map(
              context.decode("reserve", response.output.Attributes ?? {}),
              (record) => ({ _tag: "Reserved", record }) as const
            )
            // A retried request whose first attempt applied passes the condition again (the reservation is ours), so
            // a failed condition always means no row, or someone else's live reservation.
            : Effect.map(
              context.conflicting("reserve", key, response.item, true, clock),
              (current) => ({ _tag: "NotReserved", current }) as const
            )
      ))
}
