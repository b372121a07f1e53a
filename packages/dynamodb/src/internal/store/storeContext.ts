/**
 * What every operation of one store shares: its table, key layout and transport, and the requests and decoding they
 * all make. Built once per store; each operation's module takes it and closes over it.
 *
 * @internal
 */
import {
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
  type UpdateItemCommandOutput
} from "@aws-sdk/client-dynamodb"
import * as Checked from "@leasehold/core/Checked"
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import type * as Keys from "@leasehold/core/dynamodb/Keys"
import * as LockItem from "@leasehold/core/dynamodb/LockItem"
import * as OldItems from "@leasehold/core/dynamodb/OldItems"
import * as SemaphoreItem from "@leasehold/core/dynamodb/SemaphoreItem"
import * as SemaphoreKeys from "@leasehold/core/dynamodb/SemaphoreKeys"
import { LockStoreError, type StoreOperation } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as ClockSkew from "../transport/clockSkew.js"
import * as Transport from "../transport/transport.js"

/** The operations that read an item: `inspect`, and those that read the holder after a failed condition. */
type Reader = keyof typeof Calls.getItemCalls

/** @internal */
export interface Config {
  readonly transport: Transport.Transport
  readonly layout: Keys.KeyLayout
  readonly tableName: string
  readonly ttlRetentionMs: number
  /** Set when the clock-skew guard is on. */
  readonly skew: ClockSkew.Monitor | undefined
}

/** @internal */
export interface StoreContext extends Config {
  readonly client: DynamoDBClient
  /** Where semaphores live: their keys, apart from every lock's. */
  readonly semaphoreKeys: SemaphoreKeys.SemaphoreKeys
  /** The error for an item of this table that Leasehold did not write: `problem` says what is wrong with it. */
  readonly malformedItem: (operation: StoreOperation, key: string, problem: string, cause?: unknown) => LockStoreError
  /** The same for a semaphore's item. */
  readonly malformedSemaphore: (
    operation: StoreOperation,
    key: string,
    problem: string,
    cause?: unknown
  ) => LockStoreError
  /** An item as a record, or a non-retryable error that names the table and what is malformed. */
  readonly decode: (operation: StoreOperation, item: ItemMap) => Effect.Effect<LockRecord, LockStoreError>
  /** An item as a semaphore's record, or a non-retryable error that names the table and what is malformed. */
  readonly decodeSemaphore: (
    operation: StoreOperation,
    item: ItemMap
  ) => Effect.Effect<SemaphoreRecord, LockStoreError>
  /** One consistent read of a key: its item, or `undefined` for none. */
  readonly readItem: (operation: Reader, key: ItemMap, clock?: Clock.Clock) => Effect.Effect<
    ItemMap | undefined,
    LockStoreError
  >
  /** One consistent read of a key: its record, or `undefined` for no item. */
  readonly getItem: (
    operation: Reader,
    key: ItemMap,
    clock?: Clock.Clock
  ) => Effect.Effect<LockRecord | undefined, LockStoreError>
  /** `conflicting`'s item, undecoded: for semaphores, whose items decode apart. */
  readonly oldItem: (
    operation: Reader,
    key: ItemMap,
    item: ItemMap | undefined,
    mayBeAbsent: boolean,
    clock: Clock.Clock
  ) => Effect.Effect<ItemMap | undefined, LockStoreError>
  /**
   * The record that made a condition fail: the old item when the server returned it, else one consistent read
   * (only where the server does not return old items; `mayBeAbsent` says whether "no item" is a possible answer).
   */
  readonly conflicting: (
    operation: "tryAcquire" | "renew" | "release" | "reserve" | "forceRelease",
    key: ItemMap,
    item: ItemMap | undefined,
    mayBeAbsent: boolean,
    clock: Clock.Clock
  ) => Effect.Effect<LockRecord | undefined, LockStoreError>
  readonly update: (
    call: Transport.Call,
    input: UpdateItemCommandInput,
    clock: Clock.Clock
  ) => Effect.Effect<Transport.Response<UpdateItemCommandOutput>, LockStoreError>
  readonly query: (input: QueryCommandInput) => Effect.Effect<Transport.Response<QueryCommandOutput>, LockStoreError>
  readonly scan: (input: ScanCommandInput) => Effect.Effect<Transport.Response<ScanCommandOutput>, LockStoreError>
  /**
   * Runs `f` with the key of a name and the fiber's clock, or fails with a non-retryable error before any request if
   * DynamoDB can not key the name. Every operation fails alike: a renew or an inspect that answered "absent" would
   * make a bad name look like a free lock. (`Lock` checks names against `maxNameBytes` first; this is for direct
   * users of the store.)
   */
  readonly keyed: <A>(
    operation: StoreOperation,
    name: string,
    f: (key: ItemMap, clock: Clock.Clock) => Effect.Effect<A, LockStoreError>
  ) => Effect.Effect<A, LockStoreError>
  /** `keyed` for a semaphore's name. */
  readonly keyedSemaphore: <A>(
    operation: StoreOperation,
    name: string,
    f: (key: ItemMap, clock: Clock.Clock) => Effect.Effect<A, LockStoreError>
  ) => Effect.Effect<A, LockStoreError>
}

/**
 * Spans of this store: the operator calls (inspect, list, forceRelease) have their own, which name the lock. The
 * lock's own calls (tryAcquire, renew, release) have none: each runs under `Lock`'s span of the same call
 * (`Lock.acquire`, `Lock.renew`, `Lock.release`, with name, owner and fence), and a second span per request would add
 * a noticeable share of the client's CPU to every acquire and release. No stack capture: it costs more than the rest
 * of the span and would point into this store, not at the caller.
 *
 * @internal
 */
export const operatorSpan = (name: string) => ({ attributes: { "lock.name": name }, captureStackTrace: false })

/** The error for an item of `tableName` that Leasehold did not write (a `kind` of item: lock or semaphore). */
const malformed =
  (tableName: string, kind: string) => (operation: StoreOperation, key: string, problem: string, cause?: unknown) =>
    new LockStoreError({
      operation,
      retryable: false,
      message: LockItem.malformedMessage(tableName, kind, key, problem),
      ...(cause === undefined ? {} : { cause })
    })

/** @internal */
export const make = (config: Config): StoreContext => {
  const { layout, tableName, transport } = config
  const client = transport.client
  const semaphoreKeys = SemaphoreKeys.make(layout)
  // Whether the server returns old items: learned from the first conflict that carries one.
  const learned = OldItems.make()

  const malformedItem: StoreContext["malformedItem"] = malformed(tableName, "lock")
  const malformedSemaphore: StoreContext["malformedSemaphore"] = malformed(tableName, "semaphore")

  const decode = (operation: StoreOperation, item: ItemMap): Effect.Effect<LockRecord, LockStoreError> => {
    const decoded = LockItem.decode(layout, item)
    return decoded._tag === "Ok"
      ? Effect.succeed(decoded.value)
      : Effect.fail(malformedItem(operation, decoded.key, LockItem.describeMalformed(decoded)))
  }

  const decodeSemaphore: StoreContext["decodeSemaphore"] = (operation, item) => {
    const decoded = SemaphoreItem.decode(semaphoreKeys, layout, item)
    return decoded._tag === "Ok"
      ? Effect.succeed(decoded.value)
      : Effect.fail(malformedSemaphore(operation, decoded.key, LockItem.describeMalformed(decoded)))
  }

  const readItem: StoreContext["readItem"] = (operation, key, clock) =>
    Effect.map(
      Transport.send(
        transport,
        Calls.getItemCalls[operation],
        (probe, abortSignal) =>
          client.send(
            probe(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true })),
            { abortSignal }
          ),
        clock
      ),
      (response) => response._tag === "Ok" ? response.output.Item : undefined
    )

  const getItem: StoreContext["getItem"] = (operation, key, clock) =>
    Effect.flatMap(
      readItem(operation, key, clock),
      (item) => item === undefined ? Effect.succeed(undefined) : decode(operation, item)
    )

  const oldItem: StoreContext["oldItem"] = (operation, key, item, mayBeAbsent, clock) => {
    const old = OldItems.oldItem(learned, item, mayBeAbsent)
    return old._tag === "Known" ? Effect.succeed(old.item) : readItem(operation, key, clock)
  }

  const conflicting: StoreContext["conflicting"] = (operation, key, item, mayBeAbsent, clock) =>
    Effect.flatMap(
      oldItem(operation, key, item, mayBeAbsent, clock),
      (old) => old === undefined ? Effect.succeed(undefined) : decode(operation, old)
    )

  const update: StoreContext["update"] = (call, input, clock) =>
    Transport.send(
      transport,
      call,
      (probe, abortSignal) => client.send(probe(new UpdateItemCommand(input)), { abortSignal }),
      clock
    )

  const query: StoreContext["query"] = (input) =>
    Transport.send(
      transport,
      Calls.calls.query,
      (probe, abortSignal) => client.send(probe(new QueryCommand(input)), { abortSignal })
    )

  const scan: StoreContext["scan"] = (input) =>
    Transport.send(
      transport,
      Calls.calls.scan,
      (probe, abortSignal) => client.send(probe(new ScanCommand(input)), { abortSignal })
    )

  const keyedBy = (keyOf: (name: string) => Checked.Checked<ItemMap>) =>
  <A>(
    operation: StoreOperation,
    name: string,
    f: (key: ItemMap, clock: Clock.Clock) => Effect.Effect<A, LockStoreError>
  ): Effect.Effect<A, LockStoreError> =>
    Effect.clockWith((clock) => {
      const key = keyOf(name)
      return Checked.isOk(key)
        ? f(key.value, clock)
        : Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message: key.message }))
    })

  return {
    ...config,
    client,
    semaphoreKeys,
    malformedItem,
    malformedSemaphore,
    decode,
    decodeSemaphore,
    readItem,
    getItem,
    oldItem,
    conflicting,
    update,
    query,
    scan,
    keyed: keyedBy(layout.keyOf),
    keyedSemaphore: keyedBy(semaphoreKeys.keyOf)
  }
}
