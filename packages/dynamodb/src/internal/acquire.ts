/**
 * `tryAcquire`: one conditional write that takes a free lock, an expired one (absolute takeover) or a stale one
 * (observed takeover), guarded against taking over on a skewed clock.
 *
 * @internal
 */
import { LockStoreError } from "@leasehold/lock/LockError"
import { type LockRecord, payloadProblem } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as ClockSkew from "./clockSkew.js"
import * as Expressions from "./expressions.js"
import * as StoreContext from "./storeContext.js"

type ItemMap = Expressions.ItemMap

/** How an acquire may treat a held record. */
type Condition =
  | { readonly _tag: "FreeOnly" }
  | { readonly _tag: "FreeOrExpired"; readonly cutoff: number }
  | { readonly _tag: "FreeOrStale"; readonly stale: LockStore.StaleObservation }

const freeOnly: Condition = { _tag: "FreeOnly" }

/** An acquire's result, and the holder that made it a conflict (for the clock-skew guard). */
interface Acquisition {
  readonly result: LockStore.AcquireResult
  readonly holder: LockRecord | undefined
}

/** The values of an acquire's request: the new lease, and what its condition compares the held record with. */
const acquireValues = (
  request: LockStore.AcquireRequest,
  now: number,
  condition: Condition,
  ttlRetentionMs: number
): ItemMap => {
  const leaseUntil = now + request.leaseMs
  const values: ItemMap = {
    ":owner": Expressions.str(request.owner),
    ":holder": Expressions.str(request.holder),
    ":leaseUntil": Expressions.num(leaseUntil),
    ":leaseMs": Expressions.num(request.leaseMs),
    ":now": Expressions.num(now),
    ":ttl": Expressions.num(Expressions.ttlAt(leaseUntil, ttlRetentionMs)),
    ":zero": Expressions.zero,
    ":one": Expressions.one
  }
  if (request.data !== undefined) values[":data"] = Expressions.str(request.data)
  switch (condition._tag) {
    case "FreeOnly":
      break
    case "FreeOrExpired":
      values[":cutoff"] = Expressions.num(condition.cutoff)
      break
    case "FreeOrStale":
      values[":staleOwner"] = Expressions.str(condition.stale.owner)
      values[":staleFence"] = Expressions.num(condition.stale.fence)
      values[":staleVersion"] = Expressions.num(condition.stale.version)
      break
  }
  return values
}

const conditionExpressions: Record<Condition["_tag"], string> = {
  FreeOnly: Expressions.freeOnlyExpression,
  FreeOrExpired: Expressions.freeOrExpiredExpression,
  FreeOrStale: Expressions.freeOrStaleExpression
}

const resultOfAcquisition = (acquisition: Acquisition): LockStore.AcquireResult => acquisition.result

/**
 * Whether an estimate is beyond what the guard allows a takeover with: half the bound.
 *
 * @internal
 */
export const tooSkewed = (estimate: ClockSkew.Estimate, maxClockSkewMs: number) => estimate.skewMs > maxClockSkewMs / 2

/** The holder a takeover was refused from, as the refusals describe it. */
const describeHolder = (name: string, holder: LockRecord) =>
  `refusing to take over lock "${name}" from ${holder.holder ?? "?"} (owner ${holder.owner}, lease ` +
  `until ${new Date(holder.leaseUntil).toISOString()}) on this process's clock`

const skewRefusal = (estimate: ClockSkew.Estimate, maxClockSkewMs: number, name: string, holder: LockRecord) =>
  new LockStoreError({
    operation: "tryAcquire",
    retryable: false,
    mayHaveApplied: false,
    message: `${describeHolder(name, holder)}: ${ClockSkew.describe(estimate)}, more than half of maxClockSkew ` +
      `(${maxClockSkewMs} ms), so an expired-looking lease may still be held. Fix the clock (NTP), raise ` +
      `maxClockSkew, or use observed takeover, which trusts no wall clock`
  })

const staleRefusal = (
  estimate: ClockSkew.Estimate,
  wallNow: number,
  monotonicNow: number,
  name: string,
  holder: LockRecord
) =>
  new LockStoreError({
    operation: "tryAcquire",
    retryable: false,
    mayHaveApplied: false,
    message:
      `${describeHolder(name, holder)}: the wall clock moved ${
        Math.round(ClockSkew.drift(estimate, wallNow, monotonicNow))
      } ms against the monotonic clock since the skew against DynamoDB's clock was last measured (a clock step: ` +
      `NTP, a resumed VM), and DynamoDB's answer carried no Date header to measure it again, so an ` +
      `expired-looking lease may still be held. Check the clock (NTP), or use observed takeover, which trusts no ` +
      `wall clock`
  })

/** The only arithmetic is on the fence: a type error there means a malformed item, which deserves its name. */
const malformedFence = (context: StoreContext.StoreContext, key: ItemMap) => (error: LockStoreError) =>
  /incorrect data type/i.test(error.message)
    ? context.malformedItem(
      "tryAcquire",
      context.layout.describeKey(key),
      `its "fence" attribute is not a number (DynamoDB said: ${error.message})`,
      error.cause
    )
    : error

/** @internal */
export const make = (context: StoreContext.StoreContext): LockStore.LockStore["tryAcquire"] => {
  const { tableName, ttlRetentionMs } = context

  const write = (
    request: LockStore.AcquireRequest,
    key: ItemMap,
    now: number,
    condition: Condition,
    clock: Clock.Clock
  ) =>
    Effect.mapError(
      context.update(Expressions.calls.tryAcquire, {
        TableName: tableName,
        Key: key,
        UpdateExpression: request.data === undefined
          ? Expressions.acquireUpdateWithoutData
          : Expressions.acquireUpdateWithData,
        ConditionExpression: conditionExpressions[condition._tag],
        ExpressionAttributeNames: Expressions.acquireNames,
        ExpressionAttributeValues: acquireValues(request, now, condition, ttlRetentionMs),
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD"
      }, clock),
      malformedFence(context, key)
    )

  const attempt = (
    request: LockStore.AcquireRequest,
    key: ItemMap,
    now: number,
    condition: Condition,
    clock: Clock.Clock
  ): Effect.Effect<Acquisition, LockStoreError> =>
    Effect.flatMap(write(request, key, now, condition, clock), (response) => {
      if (response._tag === "Ok") {
        return Effect.map(
          context.decode("tryAcquire", response.output.Attributes ?? {}),
          (record): Acquisition => ({ result: { _tag: "Acquired", record }, holder: undefined })
        )
      }
      return Effect.map(context.conflicting("tryAcquire", key, response.item, false, clock), (current): Acquisition => {
        // Our own owner in the record means an earlier attempt of this very call was applied and its response
        // lost (the owner is random per acquisition): that is an acquisition, not a conflict.
        if (response.attempts > 1 && current !== undefined && current.owner === request.owner) {
          return { result: { _tag: "Acquired", record: current }, holder: undefined }
        }
        const held = StoreContext.heldOrReserved(current)
        return { result: { _tag: "Conflict", current: held }, holder: held }
      })
    })

  const resultOf = (
    request: LockStore.AcquireRequest,
    key: ItemMap,
    now: number,
    condition: Condition,
    clock: Clock.Clock
  ) => Effect.map(attempt(request, key, now, condition, clock), resultOfAcquisition)

  return (request) =>
    context.keyed("tryAcquire", request.name, (key, clock) => {
      const payload = payloadProblem(request)
      if (payload !== undefined) {
        return Effect.fail(
          new LockStoreError({
            operation: "tryAcquire",
            retryable: false,
            mayHaveApplied: false,
            message: payload.message
          })
        )
      }
      const now = clock.unsafeCurrentTimeMillis()
      const takeover = request.takeover

      if (takeover._tag === "Observed") {
        const condition: Condition = takeover.stale === undefined
          ? freeOnly
          : { _tag: "FreeOrStale", stale: takeover.stale }
        return resultOf(request, key, now, condition, clock)
      }

      const maxClockSkewMs = takeover.maxClockSkewMs
      const expiredCondition: Condition = { _tag: "FreeOrExpired", cutoff: now - maxClockSkewMs }
      const skew = context.skew
      if (skew === undefined) return resultOf(request, key, now, expiredCondition, clock)

      // The guard: take over an expired lease only while our clock provably agrees with DynamoDB's within half the
      // bound, by an estimate that still describes our clock (the wall clock has not stepped since it was taken).
      // Without such an estimate (a fresh process, a stale or a too skewed one), ask for a free lock first; the answer
      // carries a Date header to measure with, and a takeover follows only when that measurement allows it.
      const before = skew.current()
      if (
        before !== undefined && !tooSkewed(before, maxClockSkewMs) &&
        !ClockSkew.isStale(before, now, ClockSkew.monotonicMillis(clock))
      ) {
        return resultOf(request, key, now, expiredCondition, clock)
      }

      return Effect.flatMap(attempt(request, key, now, freeOnly, clock), (first) => {
        const holder = first.holder
        // Only a held lease past its time calls for a takeover; a free lock that conflicted is someone else's reservation.
        if (holder?.owner === undefined || holder.leaseUntil + maxClockSkewMs >= now) {
          return Effect.succeed(first.result)
        }
        const after = skew.current()
        // Not measurable: the server sends no Date header, so there is nothing to guard with.
        if (after === undefined) return resultOf(request, key, now, expiredCondition, clock)
        const wallNow = clock.unsafeCurrentTimeMillis()
        const monotonicNow = ClockSkew.monotonicMillis(clock)
        if (ClockSkew.isStale(after, wallNow, monotonicNow)) {
          // No fresh measurement came back (or the clock stepped again meanwhile): fail closed.
          return Effect.fail(staleRefusal(after, wallNow, monotonicNow, request.name, holder))
        }
        if (tooSkewed(after, maxClockSkewMs)) {
          return Effect.fail(skewRefusal(after, maxClockSkewMs, request.name, holder))
        }
        return resultOf(request, key, now, expiredCondition, clock)
      })
    })
}
