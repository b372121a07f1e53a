/**
 * Taking N free locks together: `Lock.withLocks`, which takes them one conditional `UpdateItem` after another in one
 * global order, against one `TransactWriteItems` that takes them all, on DynamoDB Local (dynalite has no
 * transactions), through the bench's delaying proxy. Whether the library should have a transaction path is a question
 * of what it saves in round trips against what it costs in request units, and this section measures both.
 *
 * The transaction path is written with the raw SDK from the core's own requests (`LockRequests.acquire` with
 * `freeOnly`, `LockRequests.release`, keys from `Keys.make` as the store lays them out), so that each of its items is
 * exactly the library's acquiring write. A transaction returns no attributes, so the new fences are read back with one
 * consistent `BatchGetItem`: the take is two calls whatever N. Its release is measured both ways: N single releases,
 * and one more transaction. The same single takes and releases with the raw SDK are the floor of the library's path,
 * which tells the library's own overhead from the round trips. The library's own transaction path,
 * `Lock.withLocks(names, section, { transaction: true })`, is the store's `tryAcquireAll`: the same transaction and
 * batch read, then the locks kept and given back as `Lock.withLocks` keeps and gives back any.
 */
import {
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  DynamoDBClient,
  TransactWriteItemsCommand,
  UpdateItemCommand
} from "@aws-sdk/client-dynamodb"
import * as AcquireOrder from "@leasehold/core/acquire/AcquireOrder"
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Keys from "@leasehold/core/dynamodb/Keys"
import * as LockItem from "@leasehold/core/dynamodb/LockItem"
import * as LockRequests from "@leasehold/core/dynamodb/LockRequests"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Owner from "@leasehold/core/record/Owner"
import type * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { clientConfig, tables } from "./Contender.js"
import * as DelayProxy from "./DelayProxy.js"
import * as RequestUnits from "./RequestUnits.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, median, percentile, sorted, table } from "./Stats.js"
import { count, readOperations, writeOperations } from "./Uncontended.js"

export interface Options {
  /** How many locks each cycle takes together. */
  readonly sizes: ReadonlyArray<number>
  /** Delay each way, ms, that the proxy holds each request and each response. */
  readonly delaysMs: ReadonlyArray<number>
  /** Timed cycles of a row of `n` locks. */
  readonly cycles: (n: number) => number
  /** Untimed cycles of each path before a row's timed ones, on the row's own names. */
  readonly warmupCycles: number
  /**
   * How long every path cycles, untimed, at each delay before its first row: DynamoDB Local runs on a JVM, whose
   * first requests are many times slower than the later ones.
   */
  readonly warmupMs: number
}

export type Path = "withLocks" | "withLocksTransaction" | "singles" | "transaction" | "transactionRelease"

/** How each path reads in the table. */
export const pathNames: Readonly<Record<Path, string>> = {
  withLocks: "Lock.withLocks (ordered singles)",
  withLocksTransaction: "Lock.withLocks, transaction: true",
  singles: "raw SDK, ordered singles",
  transaction: "one transaction + batch read, single releases",
  transactionRelease: "one transaction + batch read, release transaction"
}

const paths: ReadonlyArray<Path> = ["withLocks", "withLocksTransaction", "singles", "transaction", "transactionRelease"]

const byPath = <A>(f: (path: Path) => A): Record<Path, A> => ({
  withLocks: f("withLocks"),
  withLocksTransaction: f("withLocksTransaction"),
  singles: f("singles"),
  transaction: f("transaction"),
  transactionRelease: f("transactionRelease")
})

export interface Row {
  readonly n: number
  readonly delayMs: number
  readonly path: Path
  /** Ms from asking to holding every lock with its fence known, one per cycle. */
  readonly takeMs: ReadonlyArray<number>
  /** Ms from asking to every lock given back, one per cycle. */
  readonly cycleMs: ReadonlyArray<number>
  /** Store calls per cycle, counted at the server. */
  readonly calls: number
  /** Request units per cycle, by AWS's rules. */
  readonly units: RequestUnits.Units
}

interface Sample {
  readonly takeMs: number
  readonly cycleMs: number
  /** What the cycle's requests cost, where this process prices them itself (the meter does not price transactions). */
  readonly units: RequestUnits.Units | undefined
}

/** The bench's table as the store keys it: partition key only, no prefix. */
const layout = Keys.make({ partitionKey: DynamoLockStore.defaultPartitionKey, sortKey: undefined, prefix: "" })

const keyOf = (name: string): ItemMap => {
  const key = layout.keyOf(name)
  if (key._tag === "Invalid") throw new Error(key.message)
  return key.value
}

const ttlRetentionMs = Duration.toMillis(Duration.decode(DynamoLockStore.defaultTtlRetention))
const leaseMs = Duration.toMillis(Lock.defaults.lease)
/** The holder the library writes by default, so that the items are the same size as its own. */
const holder = Owner.defaultHolder

/** A free lock's acquire: `freeOnly` ignores the takeover, which the request must still name. */
const acquireRequest = (name: string, owner: string): LockProtocol.AcquireRequest => ({
  name,
  owner,
  holder,
  leaseMs,
  data: undefined,
  takeover: { _tag: "Observed", stale: undefined }
})

const decoded = (item: ItemMap | undefined, name: string): LockRecord => {
  if (item === undefined) throw new Error(`take together: no item for lock "${name}" after its take`)
  const record = LockItem.decode(layout, item)
  if (record._tag !== "Ok") throw new Error(`take together: ${LockItem.describeMalformed(record)}`)
  return record.value
}

const sizeOf = (item: ItemMap): number => RequestUnits.itemSize(item as unknown as RequestUnits.Item)

/**
 * Fails the bench unless every lock shows this take's owner and a fence above the one it had before; records the
 * fences for the next check.
 */
const checkTaken = (
  fences: Map<string, number>,
  records: ReadonlyArray<Pick<LockRecord, "name" | "owner" | "fence">>,
  owner: string
) => {
  for (const record of records) {
    const before = fences.get(record.name) ?? 0
    if (record.owner !== owner) {
      throw new Error(`take together: lock "${record.name}" is held by ${record.owner ?? "nobody"}, not by its take`)
    }
    if (!(record.fence > before)) {
      throw new Error(`take together: lock "${record.name}" has fence ${record.fence}, not above ${before}`)
    }
    fences.set(record.name, record.fence)
  }
}

/** One cycle of a path on `names`, which are free at its start and again at its end. */
type Cycle = (names: ReadonlyArray<string>) => Promise<Sample>

/**
 * The sizes of the items the store's batch reads returned, as a middleware of its client sees them: the items a
 * transaction wrote, read back. The meter does not price transactions; these price the library's as the raw paths
 * price theirs.
 */
const batchReadSizes = (client: DynamoDBClient) => {
  const sizes: Array<number> = []
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args)
      if (context.commandName === "BatchGetItemCommand") {
        const output = result.output as BatchGetItemCommandOutput
        for (const items of Object.values(output.Responses ?? {})) {
          for (const item of items) sizes.push(sizeOf(item as ItemMap))
        }
      }
      return result
    },
    { step: "initialize", name: "takeTogetherBatchReadSizes" }
  )
  /** The sizes seen since the last call. */
  return () => sizes.splice(0)
}

/**
 * The library's paths: `Lock.withLocks` on the DynamoDB store, with or without `transaction`; the take ends where the
 * section starts. With it, the cycle fails unless the store took every lock in its transaction (a batch read of all of
 * them), and is priced from the items read back as the raw transaction path with single releases prices its own.
 */
const libraryCycle = (
  runtime: ManagedRuntime.ManagedRuntime<LockStore.LockStore, unknown>,
  transaction: { readonly readSizes: () => ReadonlyArray<number> } | undefined
) => {
  const fences = new Map<string, number>()
  return (names: ReadonlyArray<string>): Promise<Sample> =>
    runtime.runPromise(Effect.gen(function*() {
      transaction?.readSizes()
      const start = performance.now()
      let taken = start
      yield* Lock.withLocks(
        names,
        (leases) =>
          Effect.sync(() => {
            taken = performance.now()
            // Each lock under an owner of its own acquisition: the check is the fence's.
            for (const lease of leases) checkTaken(fences, [lease], lease.owner)
          }),
        { transaction: transaction !== undefined }
      )
      const end = performance.now()
      if (transaction === undefined) return { takeMs: taken - start, cycleMs: end - start, units: undefined }
      const sizes = transaction.readSizes()
      if (sizes.length !== names.length) {
        throw new Error(
          `take together: Lock.withLocks with transaction read back ${sizes.length} of ${names.length} locks: ` +
            `the store did not take them in one transaction`
        )
      }
      const write = sizes.reduce((sum, size) => sum + 3 * RequestUnits.writeUnits(size), 0)
      const read = sizes.reduce((sum, size) => sum + RequestUnits.readUnits(size, "strong"), 0)
      return { takeMs: taken - start, cycleMs: end - start, units: { read, write } }
    }))
}

/** The raw SDK's paths, each a cycle of its own on one client; the units they cost are priced here. */
const rawCycles = (client: DynamoDBClient): Record<Exclude<Path, "withLocks" | "withLocksTransaction">, Cycle> => {
  const TableName = tables.leasehold
  const fencesOf = { singles: new Map<string, number>(), transaction: new Map<string, number>() }

  const releaseOne = (record: LockRecord) =>
    client.send(
      new UpdateItemCommand({
        TableName,
        Key: keyOf(record.name),
        ...LockRequests.release(
          { name: record.name, owner: record.owner!, fence: record.fence },
          Date.now(),
          ttlRetentionMs
        ),
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD"
      })
    )

  /** Last taken, first given back, as `withLocks` gives them back. */
  const releaseSingles = async (records: ReadonlyArray<LockRecord>) => {
    for (const record of [...records].reverse()) await releaseOne(record)
  }

  const releaseTogether = (records: ReadonlyArray<LockRecord>) => {
    const now = Date.now()
    return client.send(
      new TransactWriteItemsCommand({
        TransactItems: records.map((record) => ({
          Update: {
            TableName,
            Key: keyOf(record.name),
            ...LockRequests.release(
              { name: record.name, owner: record.owner!, fence: record.fence },
              now,
              ttlRetentionMs
            ),
            ReturnValuesOnConditionCheckFailure: "ALL_OLD"
          }
        }))
      })
    )
  }

  const singles: Cycle = async (names) => {
    const start = performance.now()
    const owner = Owner.random()
    const records: Array<LockRecord> = []
    const sizes: Array<number> = []
    for (const name of AcquireOrder.order(names)) {
      const output = await client.send(
        new UpdateItemCommand({
          TableName,
          Key: keyOf(name),
          ...LockRequests.acquire(acquireRequest(name, owner), Date.now(), LockRequests.freeOnly, ttlRetentionMs),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        })
      )
      records.push(decoded(output.Attributes, name))
      sizes.push(sizeOf(output.Attributes!))
    }
    const taken = performance.now()
    await releaseSingles(records)
    const end = performance.now()
    checkTaken(fencesOf.singles, records, owner)
    // Each take and each release one write of the held item, which is the larger of before and after.
    const write = sizes.reduce((sum, size) => sum + 2 * RequestUnits.writeUnits(size), 0)
    return { takeMs: taken - start, cycleMs: end - start, units: { read: 0, write } }
  }

  /** One transaction of every acquiring write, then one consistent batch read of the fences it wrote. */
  const takeTogether = async (names: ReadonlyArray<string>, owner: string) => {
    const now = Date.now()
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: names.map((name) => ({
          Update: {
            TableName,
            Key: keyOf(name),
            ...LockRequests.acquire(acquireRequest(name, owner), now, LockRequests.freeOnly, ttlRetentionMs),
            ReturnValuesOnConditionCheckFailure: "ALL_OLD"
          }
        }))
      })
    )
    const items = new Map<string, ItemMap>()
    let keys: Array<ItemMap> | undefined = names.map(keyOf)
    while (keys !== undefined && keys.length > 0) {
      const output: BatchGetItemCommandOutput = await client.send(
        new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: keys, ConsistentRead: true } } })
      )
      for (const item of output.Responses?.[TableName] ?? []) {
        const name = layout.nameOf(item)
        if (name !== undefined) items.set(name, item)
      }
      keys = output.UnprocessedKeys?.[TableName]?.Keys
    }
    return names.map((name) => ({ record: decoded(items.get(name), name), size: sizeOf(items.get(name) ?? {}) }))
  }

  const transactionCycle = (releaseTransaction: boolean): Cycle => async (names) => {
    const start = performance.now()
    const owner = Owner.random()
    const taken = await takeTogether(names, owner)
    const takenAt = performance.now()
    const records = taken.map((t) => t.record)
    await (releaseTransaction ? releaseTogether(records) : releaseSingles(records))
    const end = performance.now()
    checkTaken(fencesOf.transaction, records, owner)
    // A transactional write costs twice a single one; the batch read is one consistent read per item.
    const takeUnits = taken.reduce((sum, t) => sum + 2 * RequestUnits.writeUnits(t.size), 0)
    const releaseUnits = taken.reduce(
      (sum, t) => sum + (releaseTransaction ? 2 : 1) * RequestUnits.writeUnits(t.size),
      0
    )
    const read = taken.reduce((sum, t) => sum + RequestUnits.readUnits(t.size, "strong"), 0)
    return { takeMs: takenAt - start, cycleMs: end - start, units: { read, write: takeUnits + releaseUnits } }
  }

  return { singles, transaction: transactionCycle(false), transactionRelease: transactionCycle(true) }
}

/** One path's timed cycles of a row, with what they cost. */
interface Tally {
  readonly samples: Array<Sample>
  calls: number
  units: RequestUnits.Units
}

/**
 * Each path's rows at one delay, the clients pointed at the proxy. The paths of a row take turns cycle by cycle, so
 * that whatever else the machine does at a moment weighs on each of them alike.
 */
const atDelay = async (
  server: ServerProcess,
  delayMs: number,
  options: Options,
  log: (line: string) => void
): Promise<Array<Row>> => {
  const proxy = await DelayProxy.spawn(server.clientConfig.endpoint, delayMs)
  const config = clientConfig({ ...server.clientConfig, endpoint: proxy.endpoint })
  // The store's client as the store builds its own (one attempt per send), so that its batch reads can be watched.
  const storeClient = new DynamoDBClient({ maxAttempts: 1, ...config })
  const readSizes = batchReadSizes(storeClient)
  const runtime = ManagedRuntime.make(DynamoLockStore.layer({ tableName: tables.leasehold, client: storeClient }))
  const client = new DynamoDBClient(config)
  try {
    await runtime.runtime()
    const cycles: Record<Path, Cycle> = {
      withLocks: libraryCycle(runtime, undefined),
      withLocksTransaction: libraryCycle(runtime, { readSizes }),
      ...rawCycles(client)
    }
    // Names of a row and path only, released at the end of each cycle: free at every take.
    const namesOf = (n: number, path: Path, row: string) =>
      Array.from({ length: n }, (_, i) => `take-together-${delayMs}-${n}-${path}-${row}-${i}`)
    const warmUntil = performance.now() + options.warmupMs
    while (performance.now() < warmUntil) {
      for (const path of paths) await cycles[path](namesOf(options.sizes[0]!, path, "warmup"))
    }
    const rows: Array<Row> = []
    for (const n of options.sizes) {
      log(`take together: ${n} locks, ${delayMs} ms each way`)
      const stamp = String(Date.now())
      const names = byPath((path) => namesOf(n, path, stamp))
      const tallies = byPath((): Tally => ({ samples: [], calls: 0, units: RequestUnits.none }))
      for (let i = 0; i < options.warmupCycles; i++) {
        for (const path of paths) await cycles[path](names[path])
      }
      for (let i = 0; i < options.cycles(n); i++) {
        for (const path of paths) {
          await server.reset()
          const sample = await cycles[path](names[path])
          const counts = await server.requests()
          const tally = tallies[path]
          tally.samples.push(sample)
          tally.calls += count(counts, writeOperations) + count(counts, readOperations)
          tally.units = RequestUnits.add(tally.units, sample.units ?? await server.units())
        }
      }
      for (const path of paths) {
        const { calls, samples, units } = tallies[path]
        rows.push({
          n,
          delayMs,
          path,
          takeMs: samples.map((sample) => sample.takeMs),
          cycleMs: samples.map((sample) => sample.cycleMs),
          calls: calls / samples.length,
          units: { read: units.read / samples.length, write: units.write / samples.length }
        })
      }
    }
    return rows
  } finally {
    client.destroy()
    await runtime.dispose()
    storeClient.destroy()
    await proxy.close()
  }
}

/** Every row, one delay after the other. */
export const run = async (
  server: ServerProcess,
  options: Options,
  log: (line: string) => void
): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  for (const delayMs of options.delaysMs) rows.push(...await atDelay(server, delayMs, options, log))
  return rows
}

const roundTrip = (delayMs: number) => delayMs === 0 ? "no delay" : `${2 * delayMs} ms round trip`

/** A row's label: unique in the table, so that a page can name it. */
export const label = (row: Pick<Row, "n" | "delayMs" | "path">): string =>
  `${row.n} locks, ${roundTrip(row.delayMs)}, ${pathNames[row.path]}`

export const render = (rows: ReadonlyArray<Row>): string =>
  table(
    [
      "N, round trip, path",
      "take p50 ms",
      "take p99 ms",
      "cycle p50 ms",
      "store calls/cycle",
      "write units/cycle",
      "read units/cycle"
    ],
    rows.map((row) => [
      label(row),
      fixed(median(row.takeMs), 1),
      fixed(percentile(sorted(row.takeMs), 99), 1),
      fixed(median(row.cycleMs), 1),
      fixed(row.calls, 2),
      fixed(row.units.write, 2),
      fixed(row.units.read, 2)
    ])
  )

/**
 * For each N and delay: how much sooner the transaction takes and cycles than `withLocks`, and at what units; and how
 * much sooner `withLocks` takes with `transaction` than without.
 */
const comparison = (rows: ReadonlyArray<Row>): string => {
  const find = (of: Row, path: Path) =>
    rows.find((row) => row.n === of.n && row.delayMs === of.delayMs && row.path === path)
  return table(
    [
      "N, round trip",
      "take p50: withLocks / transaction",
      "cycle p50: withLocks / two transactions",
      "write units: two transactions / withLocks",
      "read units: two transactions",
      "take p50: withLocks / withLocks with transaction"
    ],
    rows.filter((row) => row.path === "withLocks").flatMap((row) => {
      const together = find(row, "transaction")
      const both = find(row, "transactionRelease")
      const library = find(row, "withLocksTransaction")
      return together === undefined || both === undefined ? [] : [[
        `${row.n} locks, ${roundTrip(row.delayMs)}`,
        fixed(median(row.takeMs) / median(together.takeMs), 2),
        fixed(median(row.cycleMs) / median(both.cycleMs), 2),
        fixed(both.units.write / row.units.write, 2),
        fixed(both.units.read, 2),
        library === undefined ? "n/a" : fixed(median(row.takeMs) / median(library.takeMs), 2)
      ]]
    })
  )
}

const delays = (options: Options): string =>
  options.delaysMs.map((d) =>
    d === 0
      ? "with no delay (the proxy's hop alone)"
      : `at ${d} ms each way (a ${2 * d} ms round trip, about what a call costs inside an AWS region)`
  ).join(" and ")

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

export const section = (rows: ReadonlyArray<Row>, options: Options): string =>
  `## 13. Taking N free locks: one transaction against ordered single takes (DynamoDB Local)\n\n` +
  `Each cycle takes N free locks and gives them back, in one process, on AWS DynamoDB Local (in memory, its own ` +
  `JVM), through the delaying proxy of table 7 ${delays(options)}. dynalite has no \`TransactWriteItems\`, so ` +
  `this table runs on DynamoDB Local only. The paths: ` +
  `\`Lock.withLocks(names, section)\` on the DynamoDB store, which takes the locks one conditional \`UpdateItem\` ` +
  `after another in one global order and gives them back one by one, last first (its take ends where the section ` +
  `starts); the same single writes with the raw SDK, the floor of that path; and one \`TransactWriteItems\` whose ` +
  `every item is the library's acquiring write of a free lock (the core's \`LockRequests.acquire\` with ` +
  `\`freeOnly\`, keyed as the store keys names), then one consistent \`BatchGetItem\` for the new fences, which a ` +
  `transaction does not return (the take ends with that read's answer), given back by N single releases or by one ` +
  `more transaction of the library's release writes; and \`Lock.withLocks(names, section, { transaction: true })\`, ` +
  `the library's own path to that transaction and read (the store's \`tryAcquireAll\`), whose locks are then kept ` +
  `and given back one by one as without it (its take ends where the section starts, and the bench fails the cycle ` +
  `unless the store read back every lock after one transaction). Each row and path has names of its own, released at ` +
  `the end of each cycle, so that every take finds them free; after each take the bench checks that every lock shows ` +
  `the take's owner and a fence above the one before, and fails otherwise. The paths of a row take turns cycle by ` +
  `cycle, after ${fixed(options.warmupMs / 1000, 0)} s of untimed cycles of every path at each delay and ` +
  `${plural(options.warmupCycles, "untimed cycle")} of each row; timed: ${
    options.sizes.map((n) => `${plural(options.cycles(n), "cycle")} for N = ${n}`).join(", ")
  }, so p99 is the slowest cycle or next to it. Store calls are counted at the server. Request units are what ` +
  `DynamoDB would charge, by AWS's rules (Amazon DynamoDB Developer Guide, "DynamoDB read and write operations" and ` +
  `"Amazon DynamoDB Transactions"): a single write of an item under 1 KB is one write unit, a transactional write ` +
  `two per item, a strongly consistent read one read unit per item under 4 KB, a batch read priced item by item. ` +
  `\`Lock.withLocks\`'s units are the meter's (table 1); the raw paths price their requests by the same rules ` +
  `(\`RequestUnits.ts\`) from the sizes of the items they read back, and so does \`Lock.withLocks\` with ` +
  `\`transaction\` from the items its store read back (the meter does not price transactions).\n\n` +
  render(rows) +
  "\n\nThe same rows side by side: how many times longer `Lock.withLocks` takes than the transaction's take (with " +
  "its batch read), how many times longer its whole cycle is than two transactions' (take and release), and how " +
  "many times the write units of `Lock.withLocks` those two transactions cost, and the read units they add " +
  "(`Lock.withLocks` reads nothing when its locks are free), and how many times longer `Lock.withLocks` takes " +
  "without `transaction` than with it:\n\n" + comparison(rows)
