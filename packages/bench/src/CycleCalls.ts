/**
 * Store calls of one uncontended cycle, counted exactly at the server: the first cycle on a new name, then a run of
 * cycles on that name (for several locks taken together, on those names). A lock's first acquire writes its item as every acquire does; a semaphore's first acquire finds
 * no item and creates it in an attempt of its own, so only the later cycles say what an acquisition costs once the
 * item exists.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import * as ReadWriteLock from "@leasehold/lock/ReadWriteLock"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { clientConfig, tables } from "./Contender.js"
import * as Leasehold from "./contenders/Leasehold.js"
import * as LeaseholdSemaphore from "./contenders/LeaseholdSemaphore.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, table } from "./Stats.js"
import { count, readOperations, writeOperations } from "./Uncontended.js"

/** Calls per cycle. */
export interface Calls {
  readonly writes: number
  readonly reads: number
}

export interface Row {
  readonly name: string
  readonly first: Calls
  readonly later: Calls
}

/** The locks a cycle of `Lock.withLocks` takes together. */
const together = 4

const programs: ReadonlyArray<{ readonly name: string; readonly cycle: Leasehold.Cycle }> = [
  { name: "Lock.withLock", cycle: Leasehold.cycle },
  { name: `Semaphore.withPermits, limit ${LeaseholdSemaphore.limit}`, cycle: LeaseholdSemaphore.cycle },
  { name: "ReadWriteLock.withReadLock", cycle: (key) => ReadWriteLock.withReadLock(key, Effect.void) },
  { name: "ReadWriteLock.withWriteLock", cycle: (key) => ReadWriteLock.withWriteLock(key, Effect.void) },
  {
    name: `Lock.withLocks, ${together} names`,
    cycle: (key) => Lock.withLocks(Array.from({ length: together }, (_, i) => `${key}/${i}`), Effect.void)
  }
]

/** Each program's first cycle on a new name, then `cycles` more on it, one after the other. */
export const run = async (server: ServerProcess, cycles: number): Promise<Array<Row>> => {
  const runtime = ManagedRuntime.make(
    DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(server.clientConfig) })
  )
  try {
    // Built before the first count, so that nothing the store does on start-up is counted as a cycle's.
    await runtime.runtime()
    const rows: Array<Row> = []
    for (const [index, program] of programs.entries()) {
      const key = `cycle-calls-${index}-${Date.now()}`
      const counted = async (times: number): Promise<Calls> => {
        await server.reset()
        await runtime.runPromise(Effect.repeatN(program.cycle(key), times - 1))
        const counts = await server.requests()
        return { writes: count(counts, writeOperations) / times, reads: count(counts, readOperations) / times }
      }
      const first = await counted(1)
      rows.push({ name: program.name, first, later: await counted(cycles) })
    }
    return rows
  } finally {
    await runtime.dispose()
  }
}

export const render = (rows: ReadonlyArray<Row>, cycles: number): string =>
  table(
    ["cycle", "first on a new name: writes", "reads", `each of the next ${cycles}: writes`, "reads"],
    rows.map((row) => [
      row.name,
      fixed(row.first.writes, 0),
      fixed(row.first.reads, 0),
      fixed(row.later.writes, 2),
      fixed(row.later.reads, 2)
    ])
  )
