/**
 * The cost table: what holding N locks for an hour costs in DynamoDB request units, per approach. Each approach holds
 * a few locks and then more, each time for a whole number of heartbeats, through the bench's meter; the two windows
 * give a cost per lock and a cost that does not grow with N (a session's record), and an hour is read off that line.
 * Nothing is assumed about who renews what: a lease session shows no cost per held lock because none was measured.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as LeaseSession from "@leasehold/lock/LeaseSession"
import * as Lock from "@leasehold/lock/Lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { clientConfig, tables } from "./Contender.js"
import * as Deliveryhero from "./contenders/Deliveryhero.js"
import * as DynamodbLockClient from "./contenders/DynamodbLockClient.js"
import * as EffectDistributedLock from "./contenders/EffectDistributedLock.js"
import type { ClientConfig } from "./Protocol.js"
import * as RequestUnits from "./RequestUnits.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, table } from "./Stats.js"

export interface Options {
  readonly leaseMs: number
  /** The locks held in the first and in the second window. */
  readonly sizes: readonly [number, number]
  /** Each window's length, in heartbeats (lease / 3 for every approach). */
  readonly heartbeats: number
  /** The N of the table's columns. */
  readonly columns: ReadonlyArray<number>
}

/** One approach's way to take locks and let them go; the heartbeats are the library's own. */
interface Holder {
  readonly name: string
  /** Takes every key, waiting for none (each is free); resolves once all are held, to what lets them all go. */
  readonly take: (keys: ReadonlyArray<string>) => Promise<() => Promise<void>>
  readonly close: () => Promise<void>
}

/** What one window cost, and the acquires and releases around it. */
export interface Window {
  readonly locks: number
  readonly seconds: number
  readonly held: RequestUnits.Units
  readonly acquireAndRelease: RequestUnits.Units
}

export interface Result {
  readonly name: string
  readonly windows: readonly [Window, Window]
}

const leaseholdRuntime = (config: ClientConfig) =>
  ManagedRuntime.make(DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(config) }))

/** Leasehold, each lock on its own lease, or all under one lease session opened with them. */
const leasehold = (config: ClientConfig, leaseMs: number, underSession: boolean): Holder => {
  const runtime = leaseholdRuntime(config)
  const lease = { lease: Duration.millis(leaseMs), heartbeat: Duration.millis(leaseMs / 3) }
  return {
    name: underSession ? "Leasehold, under one lease session" : "Leasehold, a heartbeat per lock",
    take: (keys) =>
      runtime.runPromise(Effect.gen(function*() {
        const scope = yield* Scope.make()
        const acquireAll = Effect.forEach(keys, (key) => Lock.acquire(key, lease), { discard: true })
        yield* Scope.extend(
          underSession
            ? Effect.flatMap(
              LeaseSession.make(lease),
              (session) => Effect.provideService(acquireAll, LeaseSession.CurrentLeaseSession, session)
            )
            : acquireAll,
          scope
        )
        return () => runtime.runPromise(Scope.close(scope, Exit.void))
      })),
    close: () => runtime.dispose()
  }
}

const dynamodbLockClient = (config: ClientConfig, leaseMs: number): Holder => {
  const client = new DynamoDBClient(clientConfig(config))
  const locks = DynamodbLockClient.failOpen(client, leaseMs)
  const take = (key: string) =>
    new Promise<DynamodbLockClient.LockClientLock>((resolve, reject) =>
      locks.acquireLock(key, (error, lock) => {
        if (error) return reject(error)
        lock.on("error", () => {})
        resolve(lock)
      })
    )
  const release = (lock: DynamodbLockClient.LockClientLock) =>
    new Promise<void>((resolve, reject) => lock.release((error) => (error ? reject(error) : resolve())))
  return {
    name: "dynamodb-lock-client (FailOpen)",
    take: async (keys) => {
      const held = await Promise.all(keys.map(take))
      return async () => {
        await Promise.all(held.map(release))
      }
    },
    close: async () => client.destroy()
  }
}

const deliveryhero = (config: ClientConfig, leaseMs: number): Holder => {
  const client = new DynamoDBClient(clientConfig(config))
  const locks = Deliveryhero.lockClient(client)
  const options = Deliveryhero.lockOptions(leaseMs)
  return {
    name: "@deliveryhero/dynamodb-lock",
    take: async (keys) => {
      const held = await Promise.all(keys.map((key) => locks.lock("bench", key, options)))
      return async () => {
        await Promise.all(held.map((lock) => locks.releaseLock(lock)))
      }
    },
    close: async () => client.destroy()
  }
}

const effectDistributedLock = (config: ClientConfig, leaseMs: number): Holder => {
  const client = new DynamoDBClient(clientConfig(config))
  const runtime = ManagedRuntime.make(EffectDistributedLock.layer(client, tables.effectDistributedLock))
  const ttl = Duration.millis(leaseMs)
  return {
    name: "effect-distributed-lock (bench's DynamoDB backing)",
    take: (keys) =>
      runtime.runPromise(Effect.gen(function*() {
        const scope = yield* Scope.make()
        yield* Scope.extend(
          Effect.forEach(
            keys,
            (key) =>
              Effect.flatMap(
                EffectDistributedLock.DistributedSemaphore.make(key, { limit: 1, ttl }),
                (mutex) => mutex.take(1)
              ),
            { discard: true }
          ),
          scope
        )
        return () => runtime.runPromise(Scope.close(scope, Exit.void))
      })),
    close: async () => {
      await runtime.dispose()
      client.destroy()
    }
  }
}

const holders = (config: ClientConfig, leaseMs: number): ReadonlyArray<Holder> => [
  leasehold(config, leaseMs, false),
  leasehold(config, leaseMs, true),
  dynamodbLockClient(config, leaseMs),
  deliveryhero(config, leaseMs),
  effectDistributedLock(config, leaseMs)
]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One window: take `locks` keys, wait half a heartbeat (the first renews of some libraries come early), meter a whole
 * number of heartbeats, let the keys go. The acquires and releases are metered apart from the window.
 */
const window = async (
  server: ServerProcess,
  holder: Holder,
  locks: number,
  options: Options,
  label: string
): Promise<Window> => {
  const heartbeatMs = options.leaseMs / 3
  const keys = Array.from({ length: locks }, (_, i) => `cost-${label}-${locks}-${Date.now()}-${i}`)
  await server.reset()
  const release = await holder.take(keys)
  const acquired = await server.units()
  await sleep(heartbeatMs / 2)
  await server.reset()
  const start = performance.now()
  await sleep(options.heartbeats * heartbeatMs)
  const held = await server.units()
  const seconds = (performance.now() - start) / 1000
  await server.reset()
  await release()
  const released = await server.units()
  return { locks, seconds, held, acquireAndRelease: RequestUnits.add(acquired, released) }
}

export const run = async (
  server: ServerProcess,
  options: Options,
  log: (line: string) => void
): Promise<Array<Result>> => {
  const results: Array<Result> = []
  for (const [i, holder] of holders(server.clientConfig, options.leaseMs).entries()) {
    try {
      const windows: Array<Window> = []
      for (const locks of options.sizes) {
        log(`holding cost: ${holder.name}, ${locks} locks for ${options.heartbeats} heartbeats`)
        windows.push(await window(server, holder, locks, options, String(i)))
      }
      results.push({ name: holder.name, windows: [windows[0]!, windows[1]!] })
    } finally {
      await holder.close()
    }
  }
  return results
}

/** Units per hour: a fixed part and a part per held lock, from the two windows; acquire + release once per lock. */
export interface Hourly {
  readonly fixed: RequestUnits.Units
  readonly perLock: RequestUnits.Units
  readonly acquireAndReleasePerLock: RequestUnits.Units
}

const perHour = (w: Window): RequestUnits.Units => ({
  read: (w.held.read * 3600) / w.seconds,
  write: (w.held.write * 3600) / w.seconds
})

export const hourly = (r: Result): Hourly => {
  const [small, large] = r.windows
  const a = perHour(small)
  const b = perHour(large)
  const span = large.locks - small.locks
  // A cost can not be below nothing: a part that the noise of the windows puts below 0 is 0.
  const perLock = { read: Math.max(0, (b.read - a.read) / span), write: Math.max(0, (b.write - a.write) / span) }
  const fixedPart = {
    read: Math.max(0, a.read - perLock.read * small.locks),
    write: Math.max(0, a.write - perLock.write * small.locks)
  }
  return {
    fixed: fixedPart,
    perLock,
    acquireAndReleasePerLock: {
      read: large.acquireAndRelease.read / large.locks,
      write: large.acquireAndRelease.write / large.locks
    }
  }
}

/** Units for holding `n` locks for an hour: the fixed part, `n` times the part per lock, and each lock's acquire and release. */
export const forHour = (h: Hourly, n: number): RequestUnits.Units => ({
  read: h.fixed.read + n * (h.perLock.read + h.acquireAndReleasePerLock.read),
  write: h.fixed.write + n * (h.perLock.write + h.acquireAndReleasePerLock.write)
})

/** Whole units, plain as every table's numbers are (the site groups thousands where it shows them). */
const units = (value: number): string => fixed(value, 0)

export const render = (results: ReadonlyArray<Result>, options: Options): string => {
  const columns = options.columns
  return table(
    [
      "approach",
      ...columns.map((n) => `write units, N = ${n.toLocaleString("en-US")}`),
      ...columns.map((n) => `read units, N = ${n.toLocaleString("en-US")}`),
      "write units/hour per held lock",
      "write units/hour, not per lock",
      "acquire + release, write units per lock"
    ],
    results.map((r) => {
      const h = hourly(r)
      return [
        r.name,
        ...columns.map((n) => units(forHour(h, n).write)),
        ...columns.map((n) => units(forHour(h, n).read)),
        fixed(h.perLock.write, 1),
        fixed(h.fixed.write, 1),
        fixed(h.acquireAndReleasePerLock.write, 2)
      ]
    })
  )
}

export const section = (results: ReadonlyArray<Result>, options: Options): string => {
  const [small, large] = options.sizes
  return `## 11. The cost of holding N locks for an hour (request units, embedded dynalite)\n\n` +
    `Each approach holds ${small} locks and then ${large} (lease ${fixed(options.leaseMs / 1000, 0)} s, every ` +
    `library renewing each lock every lease / 3 as it does by itself, Leasehold's session likewise), each time for ` +
    `${options.heartbeats} heartbeats, measured from half a heartbeat after the last acquire. ` +
    `${RequestUnits.method} An hour is each window's units ` +
    `times 3,600 s over its length; the two windows give a line, units per held lock and units that do not grow ` +
    `with N, which the columns read at each N, plus one acquire and one release per lock (measured with the ` +
    `${large}; a session's own acquire and release are counted in them). The line is exact for heartbeats, whose units per renew do not depend on how many locks a process ` +
    `holds; the rows for N = 10,000 are read off it, not held (table 4 holds 10,000).\n\n` + render(results, options)
}
