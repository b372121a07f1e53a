/**
 * Read/write locks under contention: readers and writers of one name, each a fiber of this process with a store
 * instance of its own (`LockStore.processView`), so that no local queue hands the name over and every handover goes
 * through the store, as between processes. Beside it, the same ten contenders all taking `Lock.withLock`: what a user
 * without read/write locks has.
 *
 * Each section records when it was entered and left, so that the table also says whether a writer's section ever ran
 * beside another section of the name: a check of the lock on the real store, read off the run, never an assertion.
 *
 * A lease that runs out inside the section fails that one acquisition with `LockLost`: it is counted as lost and the
 * loop goes on, as a service would, as in the contention loops.
 */
import * as Lock from "@leasehold/lock/Lock"
import * as LockStore from "@leasehold/lock/LockStore"
import * as ReadWriteLock from "@leasehold/lock/ReadWriteLock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as ContentionLoop from "./ContentionLoop.js"
import * as SectionRecord from "./SectionRecord.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, percentile, sorted, table } from "./Stats.js"
import { count, readOperations, writeOperations } from "./Uncontended.js"

export interface Options {
  readonly holdMs: number
  readonly leaseMs: number
  readonly durationMs: number
}

/** What a contender does in its section: read, or write. */
export type Role = "read" | "write"

/** One acquisition; epoch ms with sub-millisecond resolution, all from this process's one clock. */
export interface Section {
  readonly role: Role
  /** Whether nobody else may be in a section of the name meanwhile: a writer's, or any under `Lock.withLock`. */
  readonly exclusive: boolean
  readonly askedAt: number
  readonly enteredAt: number
  readonly leftAt: number
  /** The lease ran out inside the section, or before it began. */
  readonly lost: boolean
}

/** A row: how many read and how many write, and whether they take a read/write lock or all the exclusive lock. */
export interface Setup {
  readonly label: string
  readonly readers: number
  readonly writers: number
  readonly lock: "readWrite" | "exclusive"
}

/**
 * Eight readers to two writers, a read-mostly name; the same readers alone, which is all sharing can give; and the
 * same eight and two under the exclusive lock, so that its read and write columns set against the first row's.
 */
export const setups: ReadonlyArray<Setup> = [
  { label: "ReadWriteLock, 8 readers + 2 writers", readers: 8, writers: 2, lock: "readWrite" },
  { label: "ReadWriteLock, 10 readers", readers: 10, writers: 0, lock: "readWrite" },
  { label: "Lock.withLock, 10 contenders", readers: 8, writers: 2, lock: "exclusive" }
]

export interface Result {
  readonly setup: Setup
  readonly seconds: number
  readonly sections: ReadonlyArray<Section>
  /** Requests the server received during the row, by DynamoDB operation. */
  readonly counts: Record<string, number>
}

/** A section as its loop fills it in: left and lost are known only later. */
type Entry = { -readonly [K in keyof Section]: Section[K] }

/** The section to hold the name in, recording its entry and exit, and what to do when its lease is lost. */
const recorded = (sections: Array<Entry>, role: Role, exclusive: boolean, askedAt: number, holdMs: number) => {
  let entry: Entry | undefined
  const section = Effect.sync(() => {
    const now = SectionRecord.timestamp()
    entry = { role, exclusive, askedAt, enteredAt: now, leftAt: now, lost: false }
    sections.push(entry)
  }).pipe(
    Effect.andThen(Effect.sleep(Duration.millis(holdMs))),
    // Also when a lost lease interrupts it: the section ran until then.
    Effect.ensuring(Effect.sync(() => {
      if (entry !== undefined) entry.leftAt = SectionRecord.timestamp()
    }))
  )
  const markLost = Effect.sync(() => {
    // Lost before the section began: the lease was acquired, so it counts, entered and left when the loss came.
    if (entry === undefined) {
      const now = SectionRecord.timestamp()
      sections.push({ role, exclusive, askedAt, enteredAt: now, leftAt: now, lost: true })
    } else entry.lost = true
  })
  return { section, markLost }
}

/** One contender's loop on `key` until `endAt` (epoch ms): every acquisition it made. */
const contender = (
  setup: Setup,
  role: Role,
  key: string,
  options: Options,
  endAt: number
): Effect.Effect<Array<Entry>, unknown, LockStore.LockStore> =>
  Effect.gen(function*() {
    const sections: Array<Entry> = []
    const exclusive = setup.lock === "exclusive" || role === "write"
    while (Date.now() < endAt) {
      const record = recorded(sections, role, exclusive, SectionRecord.timestamp(), options.holdMs)
      // A fresh options object per acquisition, as a caller writing them inline would pass.
      const lockOptions = { lease: Duration.millis(options.leaseMs), wait: "forever" as const }
      const held = setup.lock === "exclusive"
        ? Lock.withLock(key, record.section, lockOptions)
        : role === "write"
        ? ReadWriteLock.withWriteLock(key, record.section, lockOptions)
        : ReadWriteLock.withReadLock(key, record.section, lockOptions)
      yield* held.pipe(Effect.catchTag("LockLost", () => record.markLost))
    }
    return sections
  })

/** Every contender of `setup` at once, each over its own view of the one store, on a name of the row's own. */
const runSetup = async (
  server: ServerProcess,
  runtime: ManagedRuntime.ManagedRuntime<LockStore.LockStore, unknown>,
  setup: Setup,
  index: number,
  options: Options
): Promise<Result> => {
  await server.reset()
  const started = Date.now()
  const key = `readwrite-${index}-${started}`
  const roles: Array<Role> = [
    ...Array.from({ length: setup.readers }, () => "read" as const),
    ...Array.from({ length: setup.writers }, () => "write" as const)
  ]
  const perContender = await runtime.runPromise(Effect.flatMap(LockStore.LockStore, (store) =>
    Effect.all(
      roles.map((role) =>
        contender(setup, role, key, options, started + options.durationMs).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(store))
        )
      ),
      { concurrency: "unbounded" }
    )))
  const seconds = (Date.now() - started) / 1000
  return { setup, seconds, sections: perContender.flat(), counts: await server.requests() }
}

export const run = async (
  server: ServerProcess,
  options: Options,
  log: (line: string) => void
): Promise<Array<Result>> => {
  const runtime = ManagedRuntime.make(ContentionLoop.storeLayer(server.clientConfig))
  try {
    // Built before the first count, so that nothing the store does on start-up is counted as a row's.
    await runtime.runtime()
    const results: Array<Result> = []
    for (const [index, setup] of setups.entries()) {
      log(`read/write locks: ${setup.label}`)
      results.push(await runSetup(server, runtime, setup, index, options))
    }
    return results
  } finally {
    await runtime.dispose()
  }
}

/**
 * Pairs of sections that were in progress at once, one of them exclusive: a writer's beside any other, or any two
 * under the exclusive lock. The lock holds when there are none.
 */
export const overlaps = (sections: ReadonlyArray<Section>): number => {
  const byEntry = [...sections].sort((a, b) => a.enteredAt - b.enteredAt)
  let found = 0
  for (let i = 0; i < byEntry.length; i++) {
    const first = byEntry[i]!
    for (let j = i + 1; j < byEntry.length && byEntry[j]!.enteredAt < first.leftAt; j++) {
      if (first.exclusive || byEntry[j]!.exclusive) found++
    }
  }
  return found
}

/** What a cell shows where a row made no acquisitions of the kind: no writes in a row of readers alone. */
export const none = "-"

const waitCells = (sections: ReadonlyArray<Section>): Array<string> => {
  const waits = sorted(sections.map((s) => s.enteredAt - s.askedAt))
  if (waits.length === 0) return [none, none, none]
  return [fixed(percentile(waits, 50), 1), fixed(percentile(waits, 99), 1), fixed(waits[waits.length - 1]!, 1)]
}

export const render = (results: ReadonlyArray<Result>): string =>
  table(
    [
      "setup",
      "acquisitions/s",
      "reads/s",
      "writes/s",
      "read wait p50 ms",
      "read wait p99 ms",
      "read wait max ms",
      "write wait p50 ms",
      "write wait p99 ms",
      "write wait max ms",
      "store calls/acquisition",
      "writes",
      "reads",
      "lost",
      "overlaps"
    ],
    results.map((r) => {
      const reads = r.sections.filter((s) => s.role === "read")
      const writes = r.sections.filter((s) => s.role === "write")
      const n = r.sections.length
      const calls = Object.values(r.counts).reduce((a, b) => a + b, 0)
      return [
        r.setup.label,
        fixed(n / r.seconds, 1),
        fixed(reads.length / r.seconds, 1),
        fixed(writes.length / r.seconds, 1),
        ...waitCells(reads),
        ...waitCells(writes),
        fixed(calls / n, 2),
        fixed(count(r.counts, writeOperations) / n, 2),
        fixed(count(r.counts, readOperations) / n, 2),
        fixed(r.sections.filter((s) => s.lost).length, 0),
        fixed(overlaps(r.sections), 0)
      ]
    })
  )

export const section = (results: ReadonlyArray<Result>, options: Options): string =>
  `## 12. Read/write locks under contention (embedded dynalite)\n\n` +
  `Ten contenders on one name for ${options.durationMs} ms each row, fibers of one process, each with a store ` +
  `instance of its own (\`LockStore.processView\`), so that every handover goes through the store as between ` +
  `processes. Each loops: ask, hold ${options.holdMs} ms, give back (\`withReadLock(name, sleep ${options.holdMs} ` +
  `ms, { lease: ${options.leaseMs} ms, wait: "forever" })\` for a reader, \`withWriteLock\` likewise for a writer), ` +
  `with the hold and lease of table 2. The last row is the same eight readers and two writers all taking ` +
  `\`Lock.withLock\`, which a user without read/write locks has; its reads and writes are those contenders' ` +
  `acquisitions. Wait = from asking to entering the section. Store calls are counted at the server, per ` +
  `acquisition of either kind. Lost = acquisitions whose lease ran out inside the section (the loop went on). ` +
  `Overlaps = pairs of sections of the name in progress at once, by their recorded entering and leaving, one of ` +
  `them a writer's (in the last row, any two): a check of the lock, which holds when it is 0. \`${none}\`: the row ` +
  `made no acquisitions of that kind.\n\n` + render(results)
