/**
 * The DynamoDB store's operations: each a single conditional write or read, built from the expressions below.
 *
 * @internal
 */
import {
  type AttributeValue,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
  UpdateItemCommand,
  type UpdateItemCommandInput
} from "@aws-sdk/client-dynamodb"
import { LockStoreError, type StoreOperation } from "@leasehold/lock/LockError"
import { type LockRecord, payloadProblem } from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Utf8 from "@leasehold/lock/Utf8"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ClockSkew from "./clockSkew.js"
import * as Cursor from "./cursor.js"
import * as Item from "./item.js"
import * as Keys from "./keys.js"
import * as Transport from "./transport.js"

/** DynamoDB's `Limit` is a 32-bit integer; a larger page (an infinite one: no limit) is read in requests this big. */
const maxRequestLimit = 2 ** 31 - 1

/** @internal */
export interface Config {
  readonly transport: Transport.Transport
  readonly layout: Keys.KeyLayout
  readonly tableName: string
  readonly ttlRetentionMs: number
  /** Set when the clock-skew guard is on. */
  readonly skew: ClockSkew.Monitor | undefined
}

type ItemMap = Record<string, AttributeValue>

const a = Item.attributes

/** `#owner` for `owner`: every attribute goes through a placeholder (owner and ttl are reserved words). */
const names = (...attributes: ReadonlyArray<string>): Readonly<Record<string, string>> =>
  Object.freeze(Object.fromEntries(attributes.map((attribute) => [`#${attribute}`, attribute])))

const num = (n: number): AttributeValue => ({ N: String(n) })
const str = (s: string): AttributeValue => ({ S: s })

/** DynamoDB TTL wants epoch seconds; rounding up keeps the row at least the full retention. */
const ttlAt = (epochMs: number, retentionMs: number): number => Math.ceil((epochMs + retentionMs) / 1000)

// The parts of every request that do not depend on it, built once: a lock operation is on the hot path of every
// acquisition and heartbeat. The SDK only reads its input, so one object serves every request (frozen: an SDK that
// wrote to it would fail loudly instead of changing other requests).

/** Every write changes the version, whatever the clocks say: observed takeover watches it. */
const nextVersion = `#${a.version} = if_not_exists(#${a.version}, :zero) + :one`

const acquireSet = `SET #${a.owner} = :owner, #${a.holder} = :holder, #${a.leaseUntil} = :leaseUntil, ` +
  `#${a.leaseMs} = :leaseMs, #${a.acquiredAt} = :now, #${a.ttl} = :ttl, ${nextVersion}, ` +
  // A new name, or a row deleted by TTL, restarts its fence from the writer's clock, as the memory store does: above
  // every earlier token as long as TTL retention is far longer than clock skew.
  `#${a.fence} = if_not_exists(#${a.fence}, :now) + :one`
const acquireUpdateWithData = `${acquireSet}, #${a.data} = :data`
const acquireUpdateWithoutData = `${acquireSet} REMOVE #${a.data}`
const acquireNames = names(
  a.owner,
  a.holder,
  a.leaseUntil,
  a.leaseMs,
  a.acquiredAt,
  a.ttl,
  a.fence,
  a.data,
  a.version
)
const one = Object.freeze(num(1))
const zero = Object.freeze(num(0))

const freeOnlyExpression = `attribute_not_exists(#${a.owner})`
const freeOrExpiredExpression = `attribute_not_exists(#${a.owner}) OR #${a.leaseUntil} < :cutoff`
const freeOrStaleExpression = `attribute_not_exists(#${a.owner}) OR ` +
  `(#${a.owner} = :staleOwner AND #${a.fence} = :staleFence AND ` +
  `(#${a.version} = :staleVersion OR (attribute_not_exists(#${a.version}) AND :staleVersion = :zero)))`

const renewUpdate = `SET #${a.leaseUntil} = :leaseUntil, #${a.leaseMs} = :leaseMs, #${a.ttl} = :ttl, ${nextVersion}`
const renewCondition = `#${a.owner} = :owner AND #${a.fence} = :fence`
const renewNames = names(a.leaseUntil, a.leaseMs, a.ttl, a.owner, a.fence, a.version)

// The row stays on release (its fence must keep increasing); TTL removes it once idle for the retention.
const clearUpdate = `SET #${a.leaseUntil} = :zero, #${a.ttl} = :ttl, ${nextVersion} ` +
  `REMOVE #${a.owner}, #${a.holder}, #${a.acquiredAt}, #${a.data}`
const clearNames = names(a.leaseUntil, a.ttl, a.owner, a.holder, a.acquiredAt, a.data, a.version)
const clearNamesWithFence = names(a.leaseUntil, a.ttl, a.owner, a.holder, a.acquiredAt, a.data, a.version, a.fence)
const releaseByOwner = `#${a.owner} = :owner`
const releaseByOwnerAndFence = `#${a.owner} = :owner AND #${a.fence} = :fence`
const forceReleaseCondition = `attribute_exists(#${a.owner})`

const calls = {
  tryAcquire: { operation: "tryAcquire", action: "UpdateItem" },
  renew: { operation: "renew", action: "UpdateItem" },
  release: { operation: "release", action: "UpdateItem" },
  forceRelease: { operation: "forceRelease", action: "UpdateItem" },
  query: { operation: "list", action: "Query" },
  scan: { operation: "list", action: "Scan" }
} as const satisfies Record<string, Transport.Call>

const getItemCalls = {
  tryAcquire: { operation: "tryAcquire", action: "GetItem" },
  renew: { operation: "renew", action: "GetItem" },
  release: { operation: "release", action: "GetItem" },
  inspect: { operation: "inspect", action: "GetItem" }
} as const satisfies Partial<Record<StoreOperation, Transport.Call>>

/** How an acquire may treat a held record. */
type Condition =
  | { readonly _tag: "FreeOnly" }
  | { readonly _tag: "FreeOrExpired"; readonly cutoff: number }
  | { readonly _tag: "FreeOrStale"; readonly stale: LockStore.StaleObservation }

const freeOnly: Condition = { _tag: "FreeOnly" }

const releasedResult: LockStore.ReleaseResult = { _tag: "Released" }
const released = Effect.succeed(releasedResult)

/**
 * Spans of this store: the operator calls (inspect, list, forceRelease) have their own, which name the lock. The
 * lock's own calls (tryAcquire, renew, release) have none: each runs under `Lock`'s span of the same call
 * (`Lock.acquire`, `Lock.renew`, `Lock.release`, with name, owner and fence), and a second span per request cost
 * about a tenth of the raw SDK's client CPU per acquire + release, measured against dynalite. No stack capture: it
 * costs more than the rest of the span and would point into this file, not at the caller.
 */
const spanOptions = (name: string) => ({ attributes: { "lock.name": name }, captureStackTrace: false })

/** An acquire's result, and the holder that made it a conflict (for the clock-skew guard). */
interface Acquisition {
  readonly result: LockStore.AcquireResult
  readonly holder: LockRecord | undefined
}

/** @internal */
export const make = (config: Config): LockStore.Operations => {
  const { layout, tableName, transport, ttlRetentionMs } = config
  const client = transport.client
  // Learned from the first conflict that carries the old item: after that, a conflict without an item means "no
  // item", and needs no read. Servers without ReturnValuesOnConditionCheckFailure (dynalite) never teach it.
  let returnsOldItems = false

  const malformed = (operation: StoreOperation, m: Item.Malformed) =>
    new LockStoreError({
      operation,
      retryable: false,
      message: `table "${tableName}" holds a malformed lock item ${m.key}: attribute "${m.attribute}" ${m.problem}; ` +
        `it was not written by Leasehold or was edited by hand: fix or delete that item`
    })

  const decode = (operation: StoreOperation, item: ItemMap): Effect.Effect<LockRecord, LockStoreError> => {
    const decoded = Item.decode(layout, item)
    return Either.isRight(decoded) ? Effect.succeed(decoded.right) : Effect.fail(malformed(operation, decoded.left))
  }

  const decodeOptional = (operation: StoreOperation, item: ItemMap | undefined) =>
    item === undefined ? Effect.succeed(undefined) : decode(operation, item)

  const getItem = (operation: keyof typeof getItemCalls, key: ItemMap, clock?: Clock.Clock) =>
    Effect.flatMap(
      Transport.send(
        transport,
        getItemCalls[operation],
        (probe, abortSignal) =>
          client.send(
            probe(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true })),
            { abortSignal }
          ),
        clock
      ),
      (response) => decodeOptional(operation, response._tag === "Ok" ? response.output.Item : undefined)
    )

  /**
   * The record that made a condition fail: the old item when the server returned it, else one consistent read
   * (only where the server does not return old items; `mayBeAbsent` says whether "no item" is a possible answer).
   */
  const conflicting = (
    operation: "tryAcquire" | "renew" | "release",
    key: ItemMap,
    item: ItemMap | undefined,
    mayBeAbsent: boolean,
    clock: Clock.Clock
  ): Effect.Effect<LockRecord | undefined, LockStoreError> => {
    if (item !== undefined) {
      returnsOldItems = true
      return decode(operation, item)
    }
    if (returnsOldItems && mayBeAbsent) return Effect.succeed(undefined)
    return getItem(operation, key, clock)
  }

  const update = (call: Transport.Call, input: UpdateItemCommandInput, clock: Clock.Clock) =>
    Transport.send(
      transport,
      call,
      (probe, abortSignal) => client.send(probe(new UpdateItemCommand(input)), { abortSignal }),
      clock
    )

  /**
   * Runs `f` with the key of a name and the fiber's clock, or fails with a non-retryable error before any request if
   * DynamoDB can not key the name. Every operation fails alike: a renew or an inspect that answered "absent" would
   * make a bad name look like a free lock. (`Lock` checks names against `maxNameBytes` first; this is for direct
   * users of the store.)
   */
  const keyed = <A>(
    operation: StoreOperation,
    name: string,
    f: (key: ItemMap, clock: Clock.Clock) => Effect.Effect<A, LockStoreError>
  ): Effect.Effect<A, LockStoreError> =>
    Effect.clockWith((clock) => {
      const key = layout.keyOf(name)
      return Either.isRight(key)
        ? f(key.right, clock)
        : Effect.fail(new LockStoreError({ operation, retryable: false, message: key.left }))
    })

  // The only arithmetic is on the fence: a type error there means a malformed item, which deserves its name.
  const malformedFence = (key: ItemMap) => (error: LockStoreError) =>
    /incorrect data type/i.test(error.message)
      ? new LockStoreError({
        operation: "tryAcquire",
        retryable: false,
        message: `table "${tableName}" holds a malformed lock item ${layout.describeKey(key)}: its "fence" ` +
          `attribute is not a number (DynamoDB said: ${error.message}); it was not written by Leasehold or was ` +
          `edited by hand: fix or delete that item`,
        cause: error.cause
      })
      : error

  const writeAcquire = (
    request: LockStore.AcquireRequest,
    key: ItemMap,
    now: number,
    condition: Condition,
    clock: Clock.Clock
  ) => {
    const leaseUntil = now + request.leaseMs
    const values: ItemMap = {
      ":owner": str(request.owner),
      ":holder": str(request.holder),
      ":leaseUntil": num(leaseUntil),
      ":leaseMs": num(request.leaseMs),
      ":now": num(now),
      ":ttl": num(ttlAt(leaseUntil, ttlRetentionMs)),
      ":zero": zero,
      ":one": one
    }
    if (request.data !== undefined) values[":data"] = str(request.data)
    let conditionExpression: string
    switch (condition._tag) {
      case "FreeOnly":
        conditionExpression = freeOnlyExpression
        break
      case "FreeOrExpired":
        conditionExpression = freeOrExpiredExpression
        values[":cutoff"] = num(condition.cutoff)
        break
      case "FreeOrStale":
        conditionExpression = freeOrStaleExpression
        values[":staleOwner"] = str(condition.stale.owner)
        values[":staleFence"] = num(condition.stale.fence)
        values[":staleVersion"] = num(condition.stale.version)
        break
    }
    return Effect.mapError(
      update(calls.tryAcquire, {
        TableName: tableName,
        Key: key,
        UpdateExpression: request.data === undefined ? acquireUpdateWithoutData : acquireUpdateWithData,
        ConditionExpression: conditionExpression,
        ExpressionAttributeNames: acquireNames,
        ExpressionAttributeValues: values,
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD"
      }, clock),
      malformedFence(key)
    )
  }

  const skewRefusal = (estimate: ClockSkew.Estimate, maxClockSkewMs: number, name: string, holder: LockRecord) =>
    new LockStoreError({
      operation: "tryAcquire",
      retryable: false,
      message: `refusing to take over lock "${name}" from ${holder.holder ?? "?"} (owner ${holder.owner}, lease ` +
        `until ${new Date(holder.leaseUntil).toISOString()}) on this process's clock: ${
          ClockSkew.describe(estimate)
        }, more than half of maxClockSkew (${maxClockSkewMs} ms), so an expired-looking lease may still be held. ` +
        `Fix the clock (NTP), raise maxClockSkew, or use observed takeover, which trusts no wall clock`
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
      message: `refusing to take over lock "${name}" from ${holder.holder ?? "?"} (owner ${holder.owner}, lease ` +
        `until ${new Date(holder.leaseUntil).toISOString()}) on this process's clock: the wall clock moved ${
          Math.round(ClockSkew.drift(estimate, wallNow, monotonicNow))
        } ms against the monotonic clock since the skew against DynamoDB's clock was last measured (a clock step: ` +
        `NTP, a resumed VM), and DynamoDB's answer carried no Date header to measure it again, so an ` +
        `expired-looking lease may still be held. Check the clock (NTP), or use observed takeover, which trusts no ` +
        `wall clock`
    })

  const tryAcquire = (request: LockStore.AcquireRequest): Effect.Effect<LockStore.AcquireResult, LockStoreError> =>
    keyed("tryAcquire", request.name, (key, clock) => {
      const payload = payloadProblem(request)
      if (payload !== undefined) {
        return Effect.fail(new LockStoreError({ operation: "tryAcquire", retryable: false, message: payload.message }))
      }
      const now = clock.unsafeCurrentTimeMillis()
      const takeover = request.takeover

      const attempt = (condition: Condition): Effect.Effect<Acquisition, LockStoreError> =>
        Effect.flatMap(writeAcquire(request, key, now, condition, clock), (response) => {
          if (response._tag === "Ok") {
            return Effect.map(
              decode("tryAcquire", response.output.Attributes ?? {}),
              (record): Acquisition => ({ result: { _tag: "Acquired", record }, holder: undefined })
            )
          }
          return Effect.map(conflicting("tryAcquire", key, response.item, false, clock), (current): Acquisition => {
            // Our own owner in the record means an earlier attempt of this very call was applied and its response
            // lost (the owner is random per acquisition): that is an acquisition, not a conflict.
            if (response.attempts > 1 && current !== undefined && current.owner === request.owner) {
              return { result: { _tag: "Acquired", record: current }, holder: undefined }
            }
            const held = current?.owner === undefined ? undefined : current
            return { result: { _tag: "Conflict", current: held }, holder: held }
          })
        })
      const resultOf = (condition: Condition) => Effect.map(attempt(condition), (acquisition) => acquisition.result)

      if (takeover._tag === "Observed") {
        return resultOf(takeover.stale === undefined ? freeOnly : { _tag: "FreeOrStale", stale: takeover.stale })
      }

      const maxClockSkewMs = takeover.maxClockSkewMs
      const expiredCondition: Condition = { _tag: "FreeOrExpired", cutoff: now - maxClockSkewMs }
      const skew = config.skew
      if (skew === undefined) return resultOf(expiredCondition)

      // The guard: take over an expired lease only while our clock provably agrees with DynamoDB's within half the
      // bound, by an estimate that still describes our clock (the wall clock has not stepped since it was taken).
      // Without such an estimate (a fresh process, a stale or a too skewed one), ask for a free lock first; the answer
      // carries a Date header to measure with, and a takeover follows only when that measurement allows it.
      const tooSkewed = (estimate: ClockSkew.Estimate) => estimate.skewMs > maxClockSkewMs / 2
      const before = skew.current()
      if (
        before !== undefined && !tooSkewed(before) &&
        !ClockSkew.isStale(before, now, ClockSkew.monotonicMillis(clock))
      ) {
        return resultOf(expiredCondition)
      }

      return Effect.flatMap(attempt(freeOnly), (first) => {
        const holder = first.holder
        if (holder === undefined || holder.leaseUntil + maxClockSkewMs >= now) return Effect.succeed(first.result)
        const after = skew.current()
        // Not measurable: the server sends no Date header, so there is nothing to guard with.
        if (after === undefined) return resultOf(expiredCondition)
        const wallNow = clock.unsafeCurrentTimeMillis()
        const monotonicNow = ClockSkew.monotonicMillis(clock)
        if (ClockSkew.isStale(after, wallNow, monotonicNow)) {
          // No fresh measurement came back (or the clock stepped again meanwhile): fail closed.
          return Effect.fail(staleRefusal(after, wallNow, monotonicNow, request.name, holder))
        }
        if (tooSkewed(after)) return Effect.fail(skewRefusal(after, maxClockSkewMs, request.name, holder))
        return resultOf(expiredCondition)
      })
    })

  const renew = (request: LockStore.RenewRequest): Effect.Effect<LockStore.RenewResult, LockStoreError> =>
    keyed("renew", request.name, (key, clock) => {
      const leaseUntil = clock.unsafeCurrentTimeMillis() + request.leaseMs
      return Effect.flatMap(
        update(calls.renew, {
          TableName: tableName,
          Key: key,
          UpdateExpression: renewUpdate,
          ConditionExpression: renewCondition,
          ExpressionAttributeNames: renewNames,
          ExpressionAttributeValues: {
            ":leaseUntil": num(leaseUntil),
            ":leaseMs": num(request.leaseMs),
            ":ttl": num(ttlAt(leaseUntil, ttlRetentionMs)),
            ":owner": str(request.owner),
            ":fence": num(request.fence),
            ":zero": zero,
            ":one": one
          },
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.RenewResult, LockStoreError> =>
          response._tag === "Ok"
            ? Effect.map(
              decode("renew", response.output.Attributes ?? {}),
              (record) => ({ _tag: "Renewed", record }) as const
            )
            : Effect.map(
              conflicting("renew", key, response.item, true, clock),
              (current) => ({ _tag: "Lost", current: current?.owner === undefined ? undefined : current }) as const
            )
      )
    })

  const release = (request: LockStore.ReleaseRequest): Effect.Effect<LockStore.ReleaseResult, LockStoreError> =>
    keyed("release", request.name, (key, clock) => {
      const values: ItemMap = {
        ":zero": zero,
        ":one": one,
        ":ttl": num(ttlAt(clock.unsafeCurrentTimeMillis(), ttlRetentionMs)),
        ":owner": str(request.owner)
      }
      if (request.fence !== undefined) values[":fence"] = num(request.fence)
      return Effect.flatMap(
        update(calls.release, {
          TableName: tableName,
          Key: key,
          UpdateExpression: clearUpdate,
          ConditionExpression: request.fence === undefined ? releaseByOwner : releaseByOwnerAndFence,
          ExpressionAttributeNames: request.fence === undefined ? clearNames : clearNamesWithFence,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReleaseResult, LockStoreError> => {
          if (response._tag === "Ok") return released
          return Effect.map(conflicting("release", key, response.item, true, clock), (current) => {
            // A free record after a retried request: the earlier attempt was applied and its response lost.
            if (response.attempts > 1 && current !== undefined && current.owner === undefined) return releasedResult
            return { _tag: "NotHeld", current: current?.owner === undefined ? undefined : current } as const
          })
        }
      )
    })

  const inspect = (name: string): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
    keyed("inspect", name, (key, clock) => Effect.map(getItem("inspect", key, clock), Option.fromNullable)).pipe(
      Effect.withSpan("DynamoLockStore.inspect", spanOptions(name))
    )

  const forceRelease = (name: string): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
    keyed("forceRelease", name, (key, clock) =>
      Effect.flatMap(
        update(calls.forceRelease, {
          TableName: tableName,
          Key: key,
          UpdateExpression: clearUpdate,
          ConditionExpression: forceReleaseCondition,
          ExpressionAttributeNames: clearNames,
          ExpressionAttributeValues: {
            ":zero": zero,
            ":one": one,
            ":ttl": num(ttlAt(clock.unsafeCurrentTimeMillis(), ttlRetentionMs))
          },
          ReturnValues: "ALL_OLD"
        }, clock),
        (response) =>
          response._tag === "ConditionFailed"
            ? Effect.succeedNone
            : Effect.map(decode("forceRelease", response.output.Attributes ?? {}), Option.some)
      )).pipe(Effect.withSpan("DynamoLockStore.forceRelease", spanOptions(name)))

  const malformedCursor = (cursor: string, problem: string) =>
    Effect.fail(
      new LockStoreError({
        operation: "list",
        retryable: false,
        message: `list cursor ${JSON.stringify(cursor.length > 80 ? cursor.slice(0, 80) + "…" : cursor)} is ` +
          `malformed: ${problem}; pass back a cursor exactly as a page of this store returned it, or none to start ` +
          `from the beginning`
      })
    )

  /**
   * Sort-key mode: one Query over the family's partition, in sort key order, from the cursor (the last name of the
   * previous page) on. Asking for one record more than the page says whether a next page exists, so the last page has
   * no cursor (as in memory).
   */
  const listByQuery = (
    sortKey: string,
    prefix: string,
    matches: (name: string) => boolean,
    cursor: string | undefined,
    limit: number
  ) =>
    Effect.gen(function*() {
      const records: Array<LockRecord> = []
      if (cursor !== undefined) {
        const bytes = Buffer.byteLength(cursor, "utf8")
        if (bytes === 0 || bytes > layout.maxNameBytes || !Utf8.isWellFormed(cursor)) {
          return yield* malformedCursor(cursor, `it is not a lock name of this store`)
        }
      }
      // DynamoDB rejects a start key outside the key condition; a cursor outside the prefix means "from the start"
      // when it sorts before every match and "nothing left" when it sorts after them.
      const outside = cursor !== undefined && !cursor.startsWith(prefix)
      if (outside && cursor > prefix) return { records, cursor: undefined }
      let startKey: ItemMap | undefined = cursor === undefined || outside
        ? undefined
        : { [layout.partitionKey]: str(layout.prefix), [sortKey]: str(cursor) }
      while (true) {
        const exclusiveStartKey = startKey
        const response = yield* Transport.send(
          transport,
          calls.query,
          (probe, abortSignal) =>
            client.send(
              probe(
                new QueryCommand({
                  TableName: tableName,
                  KeyConditionExpression: prefix === ""
                    ? "#pk = :family"
                    : "#pk = :family AND begins_with(#sk, :prefix)",
                  ExpressionAttributeNames: prefix === "" ? { "#pk": layout.partitionKey } : {
                    "#pk": layout.partitionKey,
                    "#sk": sortKey
                  },
                  ExpressionAttributeValues: prefix === ""
                    ? { ":family": str(layout.prefix) }
                    : { ":family": str(layout.prefix), ":prefix": str(prefix) },
                  ConsistentRead: true,
                  Limit: Math.min(limit + 1 - records.length, maxRequestLimit),
                  ...(exclusiveStartKey === undefined ? {} : { ExclusiveStartKey: exclusiveStartKey })
                })
              ),
              { abortSignal }
            )
        )
        if (response._tag === "ConditionFailed") break
        for (const item of response.output.Items ?? []) {
          const record = yield* decode("list", item)
          if (matches(record.name)) records.push(record)
        }
        if (records.length > limit) {
          const page = records.slice(0, limit)
          return { records: page, cursor: page[page.length - 1]?.name }
        }
        startKey = response.output.LastEvaluatedKey
        if (startKey === undefined) break
      }
      return { records, cursor: undefined }
    })

  /**
   * Partition-key-only mode: a paginated Scan in the table's own (hash) order, filtered on the key prefix, resumed
   * from the cursor (the last evaluated key, encoded). A Scan's `Limit` counts items examined before the filter, so
   * asking for the records still missing can never return more than the page holds, and every page ends exactly at
   * a `LastEvaluatedKey`: following cursors examines each item of the table once in all, never the table per page.
   * Sparse matches cost more Scans for one page; a large lock family belongs in sort-key mode, where listing is a
   * Query.
   */
  const listByScan = (
    prefix: string,
    matches: (name: string) => boolean,
    cursor: string | undefined,
    limit: number
  ) =>
    Effect.gen(function*() {
      let startKey: ItemMap | undefined = undefined
      if (cursor !== undefined) {
        const decoded = Cursor.decode(cursor, layout.partitionKey)
        if (Either.isLeft(decoded)) return yield* malformedCursor(cursor, decoded.left)
        startKey = decoded.right
      }
      const records: Array<LockRecord> = []
      const keyPrefix = layout.keyPrefixOf(prefix)
      while (true) {
        const input: ScanCommandInput = {
          TableName: tableName,
          ConsistentRead: true,
          Limit: Math.min(limit - records.length, maxRequestLimit),
          ...(keyPrefix === "" ? {} : {
            FilterExpression: "begins_with(#pk, :prefix)",
            ExpressionAttributeNames: { "#pk": layout.partitionKey },
            ExpressionAttributeValues: { ":prefix": str(keyPrefix) }
          }),
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
        }
        const response: Transport.Response<ScanCommandOutput> = yield* Transport.send(
          transport,
          calls.scan,
          (probe, abortSignal) => client.send(probe(new ScanCommand(input)), { abortSignal })
        )
        // A Scan has no condition to fail.
        if (response._tag === "ConditionFailed") return { records, cursor: undefined }
        for (const item of response.output.Items ?? []) {
          // The filter can not tell every other family's key from ours (without a prefix, ours are the keys without
          // an unescaped "#"): an item of another family is skipped, not reported as malformed.
          const name = layout.nameOf(item)
          if (name !== undefined && matches(name)) records.push(yield* decode("list", item))
        }
        startKey = response.output.LastEvaluatedKey
        if (startKey === undefined) return { records, cursor: undefined }
        if (records.length >= limit) return { records, cursor: Cursor.encode(startKey) }
      }
    })

  const list = (request: LockStore.ListRequest): Effect.Effect<LockStore.ListPage, LockStoreError> => {
    const prefix = request.prefix ?? ""
    const limit = request.limit ?? LockStore.defaultListLimit
    const problem = LockStore.listLimitProblem(limit)
    if (problem !== undefined) {
      return Effect.fail(new LockStoreError({ operation: "list", retryable: false, message: problem }))
    }
    // DynamoDB compares UTF-8, where a lone surrogate becomes U+FFFD. Names are well-formed, so a prefix can match
    // one only when it ends in the first half of a character the name completes: the server is asked for what comes
    // before that half, and the names it returns are checked against the whole prefix.
    const serverPrefix = Utf8.isWellFormed(prefix) ? prefix : prefix.slice(0, -1)
    const matches = serverPrefix === prefix
      ? (_: string) => true
      : (name: string) => name.startsWith(prefix)
    // No record can match a prefix longer than any name, or one that is not well-formed in any other way.
    if (
      Utf8.byteLength(prefix) > layout.maxNameBytes || !Utf8.isWellFormed(serverPrefix) ||
      (serverPrefix !== prefix && !/[\uD800-\uDBFF]$/.test(prefix))
    ) {
      return Effect.succeed({ records: [], cursor: undefined })
    }
    return (layout.sortKey === undefined
      ? listByScan(serverPrefix, matches, request.cursor, limit)
      : listByQuery(layout.sortKey, serverPrefix, matches, request.cursor, limit)).pipe(
        Effect.withSpan("DynamoLockStore.list", { attributes: { "lock.prefix": prefix } })
      )
  }

  return { tryAcquire, renew, release, inspect, list, forceRelease, maxNameBytes: layout.maxNameBytes }
}
