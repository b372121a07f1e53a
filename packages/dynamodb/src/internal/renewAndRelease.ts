/**
 * The writes on a held lock: `renew` extends the lease, `release` frees it for its owner, `forceRelease` frees it for
 * an operator, whoever holds it. Each is one conditional write; a failed condition answers with the current holder.
 *
 * @internal
 */
import { LockStoreError } from "@leasehold/lock/LockError"
import { dataProblem, isRenewSuperseded, type LockRecord, sequenceProblem } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Expressions from "./expressions.js"
import * as StoreContext from "./storeContext.js"

const { num, one, str, ttlAt, zero } = Expressions

const releasedResult: LockStore.ReleaseResult = { _tag: "Released" }

const renewNamesFor = (sequenced: boolean, withData: boolean) =>
  sequenced
    ? withData ? Expressions.renewNames.sequencedWithData : Expressions.renewNames.sequenced
    : withData
    ? Expressions.renewNames.unorderedWithData
    : Expressions.renewNames.unordered
const released = Effect.succeed(releasedResult)

/** @internal */
export const make = (
  context: StoreContext.StoreContext
): Pick<LockStore.LockStore, "renew" | "release" | "forceRelease"> => {
  const { tableName, ttlRetentionMs } = context

  const renew = (request: LockStore.RenewRequest): Effect.Effect<LockStore.RenewResult, LockStoreError> =>
    context.keyed("renew", request.name, (key, clock) => {
      const { setData } = request
      const problem = sequenceProblem(request.sequence) ??
        (setData === undefined ? undefined : dataProblem(setData.data))
      if (problem !== undefined) {
        return Effect.fail(
          new LockStoreError({ operation: "renew", retryable: false, mayHaveApplied: false, message: problem })
        )
      }
      const movesOwner = request.newOwner !== undefined
      // A resume starts the new owner's sequence at its own number; a renew is ordered when it carries one.
      const ordered = !movesOwner && request.sequence !== undefined
      const sequenced = movesOwner || ordered
      const leaseUntil = clock.unsafeCurrentTimeMillis() + request.leaseMs
      const values: Expressions.ItemMap = {
        ":leaseUntil": num(leaseUntil),
        ":leaseMs": num(request.leaseMs),
        ":ttl": num(ttlAt(leaseUntil, ttlRetentionMs)),
        ":owner": str(request.owner),
        ":fence": num(request.fence),
        ":zero": zero,
        ":one": one
      }
      if (setData?.data !== undefined) values[":data"] = str(setData.data)
      if (request.newOwner !== undefined) values[":newOwner"] = str(request.newOwner)
      if (sequenced) values[":sequence"] = num(request.sequence ?? 0)
      return Effect.flatMap(
        context.update(Expressions.calls.renew, {
          TableName: tableName,
          Key: key,
          // A heartbeat sends the plain renew; a data update the same write with `data` set or removed; a resume
          // the same write with the owner moved.
          UpdateExpression: Expressions.renewUpdateFor(setData, movesOwner, sequenced),
          ConditionExpression: ordered ? Expressions.orderedRenewCondition : Expressions.renewCondition,
          ExpressionAttributeNames: renewNamesFor(sequenced, setData !== undefined),
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.RenewResult, LockStoreError> =>
          response._tag === "Ok"
            ? Effect.map(
              context.decode("renew", response.output.Attributes ?? {}),
              (record) => ({ _tag: "Renewed", record }) as const
            )
            : Effect.map(
              context.conflicting("renew", key, response.item, true, clock),
              (current): LockStore.RenewResult =>
                // This renew (a retried request whose first attempt applied) or a newer one of the lease applied: the
                // lease is at least as long as this one would have made it.
                current !== undefined && current.owner === request.owner && current.fence === request.fence &&
                  isRenewSuperseded(current.sequence, request)
                  ? { _tag: "Renewed", record: current }
                  : { _tag: "Lost", current: StoreContext.heldOrUndefined(current) }
            )
      )
    })

  const release = (request: LockStore.ReleaseRequest): Effect.Effect<LockStore.ReleaseResult, LockStoreError> =>
    context.keyed("release", request.name, (key, clock) => {
      const values: Expressions.ItemMap = {
        ":zero": zero,
        ":one": one,
        ":ttl": num(ttlAt(clock.unsafeCurrentTimeMillis(), ttlRetentionMs)),
        ":owner": str(request.owner)
      }
      if (request.fence !== undefined) values[":fence"] = num(request.fence)
      return Effect.flatMap(
        context.update(Expressions.calls.release, {
          TableName: tableName,
          Key: key,
          UpdateExpression: Expressions.clearUpdate,
          ConditionExpression: request.fence === undefined
            ? Expressions.releaseByOwner
            : Expressions.releaseByOwnerAndFence,
          ExpressionAttributeNames: request.fence === undefined
            ? Expressions.clearNames
            : Expressions.clearNamesWithFence,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReleaseResult, LockStoreError> => {
          if (response._tag === "Ok") return released
          return Effect.map(context.conflicting("release", key, response.item, true, clock), (current) => {
            // A free record after a retried request: the earlier attempt was applied and its response lost.
            if (response.attempts > 1 && current !== undefined && current.owner === undefined) return releasedResult
            return { _tag: "NotHeld", current: StoreContext.heldOrUndefined(current) } as const
          })
        }
      )
    })

  const forceRelease = (
    name: string,
    holder: LockStore.ForceReleaseHolder | undefined
  ): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
    context.keyed("forceRelease", name, (key, clock) => {
      const values: Expressions.ItemMap = {
        ":zero": zero,
        ":one": one,
        ":ttl": num(ttlAt(clock.unsafeCurrentTimeMillis(), ttlRetentionMs))
      }
      if (holder !== undefined) {
        values[":owner"] = str(holder.owner)
        values[":fence"] = num(holder.fence)
      }
      return Effect.flatMap(
        context.update(Expressions.calls.forceRelease, {
          TableName: tableName,
          Key: key,
          UpdateExpression: Expressions.forceClearUpdate,
          ConditionExpression: holder === undefined
            ? Expressions.forceReleaseCondition
            : Expressions.forceReleaseOfHolderCondition,
          ExpressionAttributeNames: holder === undefined
            ? Expressions.forceClearNames
            : Expressions.forceClearNamesWithFence,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_OLD"
        }, clock),
        (response) =>
          response._tag === "ConditionFailed"
            ? Effect.succeedNone
            : Effect.map(context.decode("forceRelease", response.output.Attributes ?? {}), Option.some)
      )
    }).pipe(Effect.withSpan("DynamoLockStore.forceRelease", StoreContext.operatorSpan(name)))

  return { renew, release, forceRelease }
}
