/**
 * `reservePermits`: one conditional write that names a waiting acquisition the next to take permits of a semaphore,
 * unless someone else's reservation is live and began to wait no later. It touches neither the holders nor the fence.
 *
 * @internal
 */
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as SemaphoreExpressions from "@leasehold/core/dynamodb/SemaphoreExpressions"
import { LockStoreError } from "@leasehold/lock/LockError"
import * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as StoreContext from "../store/storeContext.js"

type Result = SemaphoreStore.ReservePermitsResult

const operation = "reservePermits"

/** @internal */
export const make = (context: StoreContext.StoreContext): SemaphoreStore.SemaphoreOperations["reservePermits"] => {
  const { tableName } = context
  return (request) =>
    context.keyedSemaphore(operation, request.name, (key, clock) => {
      const problem = SemaphoreStore.reserveProblem(request)
      if (problem !== undefined) {
        return Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message: problem }))
      }
      return Effect.flatMap(
        context.update(Calls.calls.reservePermits, {
          TableName: tableName,
          Key: key,
          ...SemaphoreExpressions.reserve(request, EffectLine.currentTimeMillisUnsafe(clock)),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<Result, LockStoreError> =>
          response._tag === "Ok"
            ? Effect.map(
              context.decodeSemaphore(operation, response.output.Attributes ?? {}),
              (semaphore): Result => ({ _tag: "Reserved", semaphore })
            )
            // A retried request whose first attempt applied passes the condition again (the reservation is ours), so
            // a failed condition always means no item, another limit, the caller a holder, or someone else's live
            // reservation.
            : Effect.flatMap(
              context.oldItem(operation, key, response.item, true, clock),
              (old): Effect.Effect<Result, LockStoreError> =>
                old === undefined
                  ? Effect.succeed({ _tag: "NotReserved", current: undefined })
                  : Effect.map(
                    context.decodeSemaphore(operation, old),
                    (current): Result => ({ _tag: "NotReserved", current })
                  )
            )
      )
    })
}
