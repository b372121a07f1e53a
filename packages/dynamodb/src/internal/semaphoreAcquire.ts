/**
 * `tryAcquirePermits`: one conditional write that creates a semaphore's item, or adds a holder to it while removing
 * holders whose leases are over, guarded against removing them on a skewed clock as a lock's takeover is.
 *
 * @internal
 */
import { LockStoreError } from "@leasehold/lock/LockError"
import { holderOf, isExpiredAt, permitRecord, type SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { tooSkewed } from "./acquire.js"
import * as ClockSkew from "./clockSkew.js"
import * as Expressions from "./expressions.js"
import * as SemaphoreExpressions from "./semaphoreExpressions.js"
import type * as StoreContext from "./storeContext.js"

type ItemMap = Expressions.ItemMap
type Result = SemaphoreStore.AcquirePermitsResult
type Expired = ReadonlyArray<SemaphoreStore.ExpiredPermit>

const operation = "tryAcquirePermits"

const refusal = (request: SemaphoreStore.AcquirePermitsRequest, reason: string) =>
  new LockStoreError({
    operation,
    retryable: false,
    mayHaveApplied: false,
    message:
      `refusing to remove the expired holders of semaphore "${request.name}" (owners ${
        request.expired.map((holder) => holder.owner).join(", ")
      }) on this process's clock: ${reason}, so an expired-looking lease may still be held. Fix the clock (NTP), ` +
      `raise maxClockSkew, or use observed takeover, which trusts no wall clock`
  })

/** Arithmetic on `fence` or `used`, or a path into `holders`, fails on an item with the wrong types: a malformed one. */
const malformedItem = (context: StoreContext.StoreContext, key: ItemMap) => (error: LockStoreError) =>
  /incorrect data type|document path/i.test(error.message)
    ? context.malformedSemaphore(
      operation,
      context.layout.describeKey(key),
      `an attribute has the wrong type (DynamoDB said: ${error.message})`,
      error.cause
    )
    : error

/** Whether each holder is in `current` with its permits and over at `now` under the skew bound. */
const allOver = (current: SemaphoreRecord, expired: Expired, now: number, maxClockSkewMs: number) =>
  expired.every((entry) => {
    const holder = holderOf(current, entry.owner)
    return holder !== undefined && holder.permits === entry.permits && isExpiredAt(holder, now, maxClockSkewMs)
  })

/**
 * Why a lease is too long for the table's TTL, or `undefined`. Every holder's write sets the one item's `ttl`, a
 * release to the retention past now: a lease (and the clock skew between the writers) longer than the retention could
 * let DynamoDB delete the item, and the permits of a holder still inside its lease with it.
 *
 * @internal
 */
export const outlivesTtl = (
  request: Pick<SemaphoreStore.AcquirePermitsRequest, "leaseMs" | "takeover">,
  ttlRetentionMs: number
): string | undefined => {
  const skewMs = request.takeover._tag === "Absolute" ? request.takeover.maxClockSkewMs : 0
  if (request.leaseMs + skewMs < ttlRetentionMs) return undefined
  return `a semaphore lease of ${request.leaseMs} ms (plus ${skewMs} ms of clock skew) must be shorter than the ` +
    `store's ttlRetention (${ttlRetentionMs} ms): another holder's release sets the item's TTL that far ahead, and ` +
    `DynamoDB could delete the item, with these permits, while their lease lasts; raise ttlRetention or shorten lease`
}

/** @internal */
export const make = (context: StoreContext.StoreContext): SemaphoreStore.SemaphoreOperations["tryAcquirePermits"] => {
  const { tableName, ttlRetentionMs } = context

  const acquired = (semaphore: SemaphoreRecord, key: ItemMap, owner: string): Effect.Effect<Result, LockStoreError> => {
    const holder = holderOf(semaphore, owner)
    return holder === undefined
      ? Effect.fail(context.malformedSemaphore(operation, context.layout.describeKey(key), `it lost holder ${owner}`))
      : Effect.succeed({ _tag: "Acquired", record: permitRecord(semaphore.name, holder), semaphore })
  }

  const attempt = (
    request: SemaphoreStore.AcquirePermitsRequest,
    expired: Expired,
    key: ItemMap,
    now: number,
    clock: Clock.Clock
  ): Effect.Effect<Result, LockStoreError> => {
    const ttl = Expressions.ttlAt(now + request.leaseMs, ttlRetentionMs)
    const parts = request.create
      ? SemaphoreExpressions.create(request, now, ttl, context.layout.partitionKey)
      : SemaphoreExpressions.acquire(request, expired, now, ttl)
    const write = context.update(Expressions.calls.tryAcquirePermits, {
      TableName: tableName,
      Key: key,
      ...parts,
      ReturnValues: "ALL_NEW",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD"
    }, clock)
    return Effect.flatMap(Effect.mapError(write, malformedItem(context, key)), (response) => {
      if (response._tag === "Ok") {
        return Effect.flatMap(
          context.decodeSemaphore(operation, response.output.Attributes ?? {}),
          (semaphore) => acquired(semaphore, key, request.owner)
        )
      }
      // A create fails only on an item that exists; an acquire also on no item (the caller then creates it).
      return Effect.flatMap(context.oldItem(operation, key, response.item, !request.create, clock), (item) => {
        if (item === undefined) return Effect.succeed<Result>({ _tag: "Conflict", current: undefined })
        return Effect.flatMap(
          context.decodeSemaphore(operation, item),
          (current): Effect.Effect<Result, LockStoreError> => {
            // Our own owner among the holders means an earlier attempt of this very call was applied and its response
            // lost (the owner is random per acquisition): that is an acquisition, not a conflict.
            if (response.attempts > 1 && holderOf(current, request.owner) !== undefined) {
              return acquired(current, key, request.owner)
            }
            return Effect.succeed(
              current.limit === request.limit
                ? { _tag: "Conflict", current }
                : { _tag: "LimitMismatch", limit: current.limit }
            )
          }
        )
      })
    })
  }

  return (request) =>
    context.keyedSemaphore(operation, request.name, (key, clock) => {
      const problem = SemaphoreStore.acquireProblem(request) ?? outlivesTtl(request, ttlRetentionMs)
      if (problem !== undefined) {
        return Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message: problem }))
      }
      const now = clock.unsafeCurrentTimeMillis()
      const expired = request.create ? [] : request.expired
      const { takeover } = request
      const skew = context.skew
      if (expired.length === 0 || takeover._tag === "Observed" || skew === undefined) {
        return attempt(request, expired, key, now, clock)
      }

      // The guard, as for a lock's takeover (see acquire.ts): remove holders on their leases' wall-clock ends only
      // while our clock provably agrees with DynamoDB's within half the bound, by an estimate taken since the wall
      // clock last stepped. Without one, first ask without removing anyone: the answer measures the clock, and the
      // removal follows only if that measurement allows it (and still finds the holders over).
      const { maxClockSkewMs } = takeover
      const before = skew.current()
      if (
        before !== undefined && !tooSkewed(before, maxClockSkewMs) &&
        !ClockSkew.isStale(before, now, ClockSkew.monotonicMillis(clock))
      ) {
        return attempt(request, expired, key, now, clock)
      }
      return Effect.flatMap(attempt(request, [], key, now, clock), (first) => {
        if (first._tag !== "Conflict" || first.current === undefined) return Effect.succeed(first)
        if (!allOver(first.current, expired, now, maxClockSkewMs)) return Effect.succeed(first)
        const after = skew.current()
        // Not measurable: the server sends no Date header, so there is nothing to guard with.
        if (after === undefined) return attempt(request, expired, key, now, clock)
        const wallNow = clock.unsafeCurrentTimeMillis()
        const monotonicNow = ClockSkew.monotonicMillis(clock)
        if (ClockSkew.isStale(after, wallNow, monotonicNow)) {
          const moved = Math.round(ClockSkew.drift(after, wallNow, monotonicNow))
          return Effect.fail(refusal(
            request,
            `the wall clock moved ${moved} ms against the monotonic clock since the skew against DynamoDB's clock ` +
              `was last measured, and DynamoDB's answer carried no Date header to measure it again`
          ))
        }
        if (tooSkewed(after, maxClockSkewMs)) {
          return Effect.fail(refusal(
            request,
            `${ClockSkew.describe(after)}, more than half of maxClockSkew (${maxClockSkewMs} ms)`
          ))
        }
        return attempt(request, expired, key, now, clock)
      })
    })
}
