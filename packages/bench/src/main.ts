/**
 * `npm run bench`: Leasehold against the raw SDK floor and the Node peers, printed as markdown tables and written to
 * BENCHMARKS.md with the machine, versions and command. `npm run bench -- --smoke` runs a few iterations and writes
 * nothing (CI); `--out <file>` writes elsewhere; `--only <section,...>` runs only those sections (uncontended,
 * contention, takeover, latency, scale, local, memory, shape, coldstart, sessiontakeover, holdingcost, readwrite,
 * taketogether) and writes nothing unless `--out` is given; `--cell-ms <ms>` sets how long each run of the shape
 * section contends (a shorter smoke of that section alone).
 * The cold start section packs and installs both lines before it runs, so `--smoke` runs it only when `--only` names
 * it, with fewer processes; the take-together section starts DynamoDB Local, so likewise.
 *
 * Tables 1, 2, 4, 5 and 8 also have a row for each of Leasehold's lines, Effect 3 and Effect 4, both run in worker
 * processes under the Effect 4 project's Node 22 (`Lines.ts`): the bench's own rows run under the bench's Node.
 */
import { execSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import * as ColdStart from "./ColdStart.js"
import type { Contender } from "./Contender.js"
import { createTables } from "./Contender.js"
import * as Deliveryhero from "./contenders/Deliveryhero.js"
import * as DynamodbLockClient from "./contenders/DynamodbLockClient.js"
import * as EffectDistributedLock from "./contenders/EffectDistributedLock.js"
import * as Leasehold from "./contenders/Leasehold.js"
import * as LeaseholdLine from "./contenders/LeaseholdLine.js"
import * as LeaseholdSemaphore from "./contenders/LeaseholdSemaphore.js"
import * as RawFloor from "./contenders/RawFloor.js"
import * as Contention from "./Contention.js"
import * as CycleCalls from "./CycleCalls.js"
import * as Drivers from "./Drivers.js"
import * as HoldingCost from "./HoldingCost.js"
import * as Latency from "./Latency.js"
import * as LineProcess from "./LineProcess.js"
import * as Lines from "./Lines.js"
import * as MemoryCycle from "./MemoryCycle.js"
import * as ReadWriteMix from "./ReadWriteMix.js"
import * as RequestUnits from "./RequestUnits.js"
import * as Scale from "./Scale.js"
import * as ServerProcess from "./ServerProcess.js"
import * as SessionTakeover from "./SessionTakeover.js"
import * as Shape from "./Shape.js"
import { fixed, median } from "./Stats.js"
import * as Takeover from "./Takeover.js"
import * as TakeTogether from "./TakeTogether.js"
import * as Uncontended from "./Uncontended.js"

const args = process.argv.slice(2)
const flag = (name: string) => args.includes(`--${name}`)
const value = (name: string): string | undefined => {
  const index = args.indexOf(`--${name}`)
  return index === -1 ? undefined : args[index + 1]
}

const smoke = flag("smoke")
const only = value("only")?.split(",")
const runs = (section: string) => only === undefined || only.includes(section)
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url))
const out = value("out") ?? (smoke || only !== undefined ? undefined : `${repoRoot}BENCHMARKS.md`)
const settings = smoke
  ? {
    rounds: 2,
    roundMs: 150,
    warmupMs: 50,
    memoryRounds: 2,
    memoryRoundMs: 100,
    contentionMs: 500,
    workers: 2,
    takeoverTrials: 1,
    takeoverLeaseMs: 400,
    countedCycles: 20
  }
  : {
    rounds: 7,
    roundMs: 2_000,
    warmupMs: 1_000,
    memoryRounds: 5,
    memoryRoundMs: 1_000,
    contentionMs: 8_000,
    workers: 4,
    takeoverTrials: 3,
    takeoverLeaseMs: 1_000,
    countedCycles: 200
  }
const contention = { holdMs: 5, leaseMs: 300, fibers: 16 }
// Lease 30 s (heartbeat 10 s) held 40 s: four renews per lock in the window, a whole number of heartbeats.
const scaleOptions: Scale.Options = smoke
  ? { sizes: [20], sessionSizes: [20], leaseMs: 1_000, holdMs: 1_000, concurrency: 10 }
  : { sizes: [1_000, 10_000], sessionSizes: [1_000, 10_000, 100_000], leaseMs: 30_000, holdMs: 40_000, concurrency: 50 }
// Fewer and shorter rounds than tables 1 and 2: the section runs one set per delay and should stay within minutes.
const latencyOptions: Latency.Options = {
  // No delay first: the proxy's hop alone, the base the delays add to.
  delaysMs: smoke ? [1] : [0, 1, 5],
  uncontended: smoke
    ? { rounds: settings.rounds, roundMs: settings.roundMs, warmupMs: settings.warmupMs }
    : { rounds: 3, roundMs: 2_000, warmupMs: 500 },
  workers: smoke ? settings.workers : 4,
  holdMs: contention.holdMs,
  leaseMs: contention.leaseMs,
  contentionMs: smoke ? settings.contentionMs : 6_000
}

// Each run a few seconds, so that the whole grid, with each run's workers to start, stays a section of minutes.
const cellMs = value("cell-ms")
if (cellMs !== undefined && !(Number(cellMs) > 0)) throw new Error(`--cell-ms takes a number of ms, not "${cellMs}"`)
const shapeOptions: Shape.Options = {
  processes: smoke ? [2] : [2, 4, 16],
  holdsMs: smoke ? [5] : [1, 5, 50],
  delaysMs: smoke ? [5] : [0, 5],
  cellMs: cellMs === undefined ? (smoke ? settings.contentionMs : 4_000) : Number(cellMs),
  leaseMs: contention.leaseMs
}

// A thousand locks, the lease short enough that the takeover bound is seconds, as in the single-lock takeover table.
const sessionTakeoverOptions: SessionTakeover.Options = smoke
  ? { n: 20, leaseMs: 1_000, maxClockSkewMs: 500, concurrency: 10 }
  : { n: 1_000, leaseMs: 2_000, maxClockSkewMs: 1_000, concurrency: 50 }

// Lease 30 s, the AWS Java client's default heartbeat of 10 s; windows of whole heartbeats.
const holdingCostOptions: HoldingCost.Options = smoke
  ? { leaseMs: 1_500, sizes: [2, 4], heartbeats: 2, columns: [1, 100, 10_000] }
  : { leaseMs: 30_000, sizes: [5, 20], heartbeats: 3, columns: [1, 100, 10_000] }

// Enough fresh processes for a median that a slow start or two does not move.
const coldStartOptions: ColdStart.Options = { processes: smoke ? 2 : 10 }

// Up to the most items one transaction takes; fewer cycles where each of withLocks' takes is that many round trips.
const takeTogetherOptions: TakeTogether.Options = smoke
  ? { sizes: [2, 4], delaysMs: [0], cycles: () => 5, warmupCycles: 1, warmupMs: 1_000 }
  : { sizes: [2, 4, 16, 100], delaysMs: [0, 5], cycles: (n) => (n >= 100 ? 20 : 40), warmupCycles: 2, warmupMs: 10_000 }

const log = (line: string) => process.stderr.write(line + "\n")

const require = createRequire(import.meta.url)
const versionOf = (name: string): string => {
  try {
    return (JSON.parse(readFileSync(`${repoRoot}node_modules/${name}/package.json`, "utf8")) as { version: string })
      .version
  } catch {
    return require(`${name}/package.json`).version as string
  }
}

const machine = (): string => {
  const cpus = os.cpus()
  let commit = "unknown"
  try {
    commit = execSync("git rev-parse --short HEAD", { cwd: repoRoot, encoding: "utf8" }).trim()
  } catch {
    // not a git checkout
  }
  return [
    `- Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${
      fixed(os.totalmem() / 2 ** 30, 1)
    } GiB, ${os.type()} ${os.release()} (${os.arch()})`,
    `- Node ${process.version}; commit ${commit}; ${new Date().toISOString()}`,
    `- Versions: effect ${versionOf("effect")}, @aws-sdk/client-dynamodb ${
      versionOf("@aws-sdk/client-dynamodb")
    }, dynalite ${versionOf("dynalite")}, dynamodb-lock-client ${versionOf("dynamodb-lock-client")}, ` +
    `@deliveryhero/dynamodb-lock ${versionOf("@deliveryhero/dynamodb-lock")}, effect-distributed-lock ${
      versionOf("effect-distributed-lock")
    }`,
    `- Leasehold's lines (their rows say so): Effect 3 (effect ${
      versionOf("effect")
    }) and Effect 4 (effect ${Lines.effect4Version()}), each in worker processes under Node ${
      Lines.nodeVersion ?? "22 (not installed)"
    }`,
    `- Command: \`npm run bench${args.length > 0 ? ` -- ${args.join(" ")}` : ""}\``
  ].join("\n")
}

const withServer = async <A>(engine: ServerProcess.Engine, f: (server: ServerProcess.ServerProcess) => Promise<A>) => {
  log(`starting ${engine} in its own process`)
  const server = await ServerProcess.start(engine)
  try {
    await createTables(server.clientConfig)
    return await f(server)
  } finally {
    await server.stop()
  }
}

/** The uncontended rounds of `makers`, then the exact store calls of a lock's and a semaphore's cycle. */
const uncontended = async (server: ServerProcess.ServerProcess, makers: ReadonlyArray<typeof Leasehold.make>) => {
  const contenders: Array<Contender> = makers.map((make) => make(server.clientConfig))
  try {
    const rounds = await Uncontended.run(server, contenders, settings, log)
    log(`store calls per cycle: ${settings.countedCycles} cycles each`)
    return { rounds, calls: await CycleCalls.run(server, settings.countedCycles) }
  } finally {
    for (const contender of contenders) await contender.close()
  }
}

type UncontendedRun = Awaited<ReturnType<typeof uncontended>>

/** What an uncontended table says of the semaphore's row, with the exact calls per cycle. */
const semaphoreCycles = (calls: ReadonlyArray<CycleCalls.Row>): string =>
  `${LeaseholdSemaphore.name}: \`Semaphore.withPermits(key, Effect.void, { limit: ${LeaseholdSemaphore.limit} })\`, ` +
  `one permit. The first cycle of each round also creates the semaphore's item, which its writes and reads per ` +
  `cycle include. Store calls per cycle counted exactly (one process, one name per row, a first cycle on the new ` +
  `name and then ${settings.countedCycles} more on it; \`Lock.withLocks\` takes its names one after another, as ` +
  `\`withLock\` takes one):\n\n${CycleCalls.render(calls, settings.countedCycles)}`

const contentionOptions = { holdMs: contention.holdMs, leaseMs: contention.leaseMs, durationMs: settings.contentionMs }

/** Every row of the contention table: the lock's and the peers', Leasehold's other primitives, fibers of one process. */
const contentionRows = async (server: ServerProcess.ServerProcess): Promise<Array<Contention.Result>> => {
  const rows: Array<Contention.Result> = []
  for (const id of [...Drivers.ids, ...Drivers.leaseholdOnly]) {
    log(`contention: ${id}, ${settings.workers} processes`)
    rows.push(await Contention.processes(server, id, settings.workers, contentionOptions))
  }
  log(`contention: ${contention.fibers} fibers`)
  rows.push(await Contention.inProcess(server, contention.fibers, contentionOptions))
  for (const line of dynamoLines) {
    log(`contention: ${line.name}, ${settings.workers} processes`)
    rows.push(await Contention.processes(server, "leasehold", settings.workers, contentionOptions, line))
  }
  return rows
}

/**
 * The scale section; the lines hold the smallest N only, which the heap per lock needs, while the largest takes
 * minutes per row.
 */
const scale = async (): Promise<string> => {
  const lineOptions = { ...scaleOptions, sizes: scaleOptions.sizes.slice(0, 1) }
  const results = await withServer("dynalite", async (server) => {
    const results = await Scale.run(server, scaleOptions, log)
    for (const line of dynamoLines) results.push(...await Scale.run(server, lineOptions, log, line))
    return results
  })
  return Scale.section(results, scaleOptions) + "\n\n" + linesNote(Lines.dynamoUnavailable()) +
    (dynamoLines.length === 0 ? "" : ` They hold N = ${lineOptions.sizes[0]!.toLocaleString("en-US")} only.`)
}

/** The hand-written reading of the numbers (profiles, causes), kept next to the bench and appended to the output. */
const findings = (): string => {
  try {
    return "\n" + readFileSync(fileURLToPath(new URL("../FINDINGS.md", import.meta.url)), "utf8")
  } catch {
    return ""
  }
}

/** The lines' rows on DynamoDB, or none with the reason printed under the table. */
const dynamoLines = Lines.dynamoUnavailable() === undefined ? Lines.lines : []

/** What a table with the lines' rows says of them: how they ran, or why they did not. */
const linesNote = (unavailable: string | undefined): string =>
  unavailable === undefined ?
    `${Lines.lines.map((line) => line.name).join(" and ")}: Leasehold's lock on each line, run in a worker ` +
    `process of that line under the Effect 4 project's Node (\`effect4/node_modules/node22\`), so that the two ` +
    `differ only in the line; every other row runs under the bench's Node, ${process.version}.` :
    `${Lines.lines.map((line) => line.name).join(" and ")}: ${unavailable}.`

/** The two lines' ratio of a measure, as a sentence, when both lines ran. */
const linesRatio = (measure: string, effect3: number | undefined, effect4: number | undefined): string =>
  effect3 === undefined || effect4 === undefined
    ? ""
    : ` Effect 4 / Effect 3 ${measure}: ${fixed(effect4 / effect3, 2)}x.`

/** The uncontended table on dynalite, with Leasehold's ratios to the raw floor and to the best peer. */
const uncontendedSection = ({ calls, rounds }: UncontendedRun): string => {
  const floor = Uncontended.medianRate(rounds.get("raw SDK floor")!)
  const leasehold = Uncontended.medianRate(rounds.get("Leasehold")!)
  const lineRate = (line: Lines.Line) => {
    const lineRounds = rounds.get(line.name)
    return lineRounds === undefined ? undefined : Uncontended.medianRate(lineRounds)
  }
  const notPeers = new Set(["raw SDK floor", "Leasehold", LeaseholdSemaphore.name, ...Lines.lines.map((l) => l.name)])
  const bestPeer = Math.max(
    ...[...rounds].filter(([name]) => !notPeers.has(name)).map(([, peer]) => Uncontended.medianRate(peer))
  )
  return `## 1. Uncontended acquire + release (embedded dynalite, server in its own process)\n\n` +
    `${settings.rounds} rounds of ${settings.roundMs} ms per contender, interleaved; median (min–max) over rounds. ` +
    `Each cycle acquires and releases one key; lease 30 s, heartbeat on (lease / 3) where the library has one. ` +
    `Writes and reads are counted by the proxy in front of the server. CPU is the bench process's ` +
    `(\`process.cpuUsage\`), which holds only the clients. ${RequestUnits.method}\n\n` +
    Uncontended.render(rounds) +
    `\n\nLeasehold / raw floor: ${fixed(leasehold / floor, 2)}x (target >= 0.9x). ` +
    `Leasehold / best peer: ${fixed(leasehold / bestPeer, 2)}x (target >= 1.5x).\n\n` +
    linesNote(Lines.dynamoUnavailable()) +
    (dynamoLines.length === 0 ? "" : " Their client CPU and their round's time are their worker process's.") +
    linesRatio("cycles/s", lineRate(Lines.effect3Line), lineRate(Lines.effect4Line)) + "\n\n" +
    semaphoreCycles(calls)
}

/**
 * The shape section's rows: Leasehold on each line (or, where the lines can not run, under the bench's Node) and the
 * peer with the best contention in table 2, effect-distributed-lock.
 */
const shapeContenders: ReadonlyArray<Shape.Contender> = [
  ...(dynamoLines.length === 0
    ? [{ id: "leasehold" as const }]
    : dynamoLines.map((line) => ({ id: "leasehold" as const, line }))),
  { id: "effect-distributed-lock" }
]

/**
 * The uncontended, contention, takeover, latency, shape and read/write runs on one dynalite server, as far as `--only`
 * asks.
 */
const onDynalite = () =>
  withServer("dynalite", async (server) => {
    const dynalite = runs("uncontended")
      ? await uncontended(server, [
        RawFloor.make,
        Leasehold.make,
        LeaseholdSemaphore.make,
        ...dynamoLines.map(LeaseholdLine.make),
        DynamodbLockClient.make,
        Deliveryhero.make,
        EffectDistributedLock.make
      ])
      : undefined
    const contended = runs("contention") ? await contentionRows(server) : []
    if (runs("takeover")) log("takeover after SIGKILL")
    const takeover = runs("takeover")
      // Smoke: each contender's first mode, to stay short.
      ? await Takeover.run(server, Drivers.ids, settings.takeoverTrials, settings.takeoverLeaseMs, smoke)
      : undefined
    const latency = runs("latency") ? await Latency.run(server, latencyOptions, log) : undefined
    const shape = runs("shape") ? await Shape.run(server, shapeContenders, shapeOptions, log) : undefined
    const readWrite = runs("readwrite") ? await ReadWriteMix.run(server, contentionOptions, log) : undefined
    return { dynalite, contended, takeover, latency, shape, readWrite }
  })

/** The uncontended and contention tables for Leasehold on DynamoDB Local; undefined if it did not run. */
const localSection = async (): Promise<string | undefined> => {
  const local = await withServer("dynamodb-local", async (server) => {
    const uncontendedRun = await uncontended(server, [RawFloor.make, Leasehold.make, LeaseholdSemaphore.make])
    // DynamoDB Local returns the holder with a failed condition (dynalite does not): the calls a conflict costs
    // on DynamoDB itself.
    const contended: Array<Contention.Result> = []
    for (const id of ["leasehold", "leasehold-semaphore"] as const) {
      log(`contention on DynamoDB Local: ${id}, ${settings.workers} processes`)
      contended.push(await Contention.processes(server, id, settings.workers, contentionOptions))
    }
    return { uncontendedRun, contended }
  })
    .catch((error: unknown) => {
      log(`DynamoDB Local did not run: ${String(error)}`)
      return undefined
    })
  if (local === undefined) return undefined
  const { calls, rounds } = local.uncontendedRun
  const ratio = Uncontended.medianRate(rounds.get("Leasehold")!) / Uncontended.medianRate(rounds.get("raw SDK floor")!)
  return `## 6. Uncontended acquire + release on AWS DynamoDB Local (in memory, its own JVM)\n\n` +
    `Same method as table 1.\n\n${Uncontended.render(rounds)}\n\nLeasehold / raw floor: ` +
    `${fixed(ratio, 2)}x.\n\n${semaphoreCycles(calls)}\n\nContention as in table 2, on DynamoDB Local, which ` +
    `returns the holder with a failed condition (\`ReturnValuesOnConditionCheckFailure\`) where dynalite needs a ` +
    `read per conflict:\n\n` + Contention.render(local.contended) + Contention.lostNote(local.contended)
}

/** The cold start table, on a dynalite server of its own; undefined if packing or installing the lines failed. */
const coldStartSection = async (): Promise<string | undefined> => {
  const result = await ColdStart.withApps(
    log,
    (apps, skipped) => withServer("dynalite", (server) => ColdStart.run(server, apps, skipped, coldStartOptions, log))
  )
  return result === undefined ? undefined : ColdStart.section(result, coldStartOptions)
}

/**
 * Table 13 on DynamoDB Local, which has transactions; undefined if it did not start. A failure after it started (a
 * take that did not leave what it should) fails the bench.
 */
const takeTogetherSection = async (): Promise<string | undefined> => {
  let started = false
  const rows = await withServer("dynamodb-local", (server) => {
    started = true
    return TakeTogether.run(server, takeTogetherOptions, log)
  }).catch((error: unknown) => {
    if (started) throw error
    log(`DynamoDB Local did not run: ${String(error)}`)
    return undefined
  })
  return rows === undefined ? undefined : TakeTogether.section(rows, takeTogetherOptions)
}

const main = async () => {
  const sections: Array<string> = []

  const { contended, dynalite, latency, readWrite, shape, takeover } = await onDynalite()
  if (dynalite !== undefined) sections.push(uncontendedSection(dynalite))

  if (contended.length > 0) {
    sections.push(
      `## 2. Contention on one key (embedded dynalite)\n\n` +
        `Each contender loops for ${settings.contentionMs} ms: acquire the key, waiting as its library waits, hold ` +
        `it ${contention.holdMs} ms, release (Leasehold: \`withLock(key, sleep ${contention.holdMs} ms, { lease: ` +
        `${contention.leaseMs} ms, wait: "forever" })\`; Leasehold Semaphore: \`withPermits(key, sleep ` +
        `${contention.holdMs} ms, { limit: processes / 2, lease: ${contention.leaseMs} ms, wait: "forever" })\`). ` +
        `Wait = from asking to entering the section. Store calls are counted at the server. Share = most ` +
        `acquisitions of one contender / fewest. ${RequestUnits.method} Waiting settings (lease ` +
        `${contention.leaseMs} ms for all):\n\n` +
        await Contention.settings() + "\n\n" + Contention.render(contended) + Contention.lostNote(contended) +
        "\n\n" + linesNote(Lines.dynamoUnavailable())
    )
  }

  if (takeover !== undefined) {
    sections.push(
      `## 3. Takeover after SIGKILL (embedded dynalite)\n\n` +
        `A worker process holds the lock with its heartbeat running (every lease / 3) and is killed with SIGKILL ` +
        `between two heartbeats; this process, asking right after the kill and waiting as the library waits, takes ` +
        `it over. Each library in each takeover mode it documents. ${settings.takeoverTrials} trial(s) per mode: ` +
        `median (min–max).\n\n` + Takeover.render(takeover)
    )
  }

  if (runs("scale")) sections.push(await scale())

  if (!smoke && !flag("no-local") && runs("local")) {
    const local = await localSection()
    if (local !== undefined) sections.push(local)
  }

  if (runs("memory")) {
    log("memory store")
    const memory = await MemoryCycle.run(settings.memoryRounds, settings.memoryRoundMs)
    const calibration = await MemoryCycle.calibrate()
    // Under a session a lease is about 2 KiB: fewer than a thousand would be lost in the noise of a forced GC.
    const heldCounts = smoke ? [1_000, 2_000] : [1_000, 4_000]
    const held: Array<number> = []
    for (const n of heldCounts) held.push(await MemoryCycle.heldInOneScope(n))
    const sessionHeld: Array<number> = []
    for (const n of heldCounts) sessionHeld.push(await MemoryCycle.heldInOneScope(n, true))
    const production = await MemoryCycle.run(settings.memoryRounds, settings.memoryRoundMs, "production")
    const rows: Array<MemoryCycle.Row> = [
      { name: "Leasehold, memory store", rounds: memory, heldBytes: held, sessionHeldBytes: sessionHeld }
    ]
    const everyPath: Array<Pick<MemoryCycle.Row, "name" | "rounds">> = [
      { name: "Leasehold, memory store through every path", rounds: production }
    ]
    for (const line of Lines.unavailable() === undefined ? Lines.lines : []) {
      log(`memory store: ${line.name}`)
      const worker = LineProcess.start(line)
      try {
        const request = { rounds: settings.memoryRounds, roundMs: settings.memoryRoundMs, held: heldCounts }
        const { heldBytes, productionRounds, rounds, sessionHeldBytes } = await worker.request({ memory: request })
        rows.push({ name: `${line.name}, memory store`, rounds, heldBytes, sessionHeldBytes })
        everyPath.push({ name: `${line.name}, memory store through every path`, rounds: productionRounds })
      } finally {
        await worker.close()
      }
    }
    const lineRate = (line: Lines.Line) => {
      const row = rows.find((r) => r.name.startsWith(line.name))
      return row === undefined ? undefined : median(row.rounds.map((r) => r.cyclesPerSecond))
    }
    sections.push(
      `## 5. Memory store, uncontended\n\n${settings.memoryRounds} rounds of ${settings.memoryRoundMs} ms ` +
        `(after one warm-up round); \`Lock.withLock(name, Effect.void)\` on \`LockStore.layerMemory\`. Heap per ` +
        `lease: leases acquired by one fiber into one scope and held there (memory store, heartbeats running), ` +
        `\`heapUsed\` after forced GCs, read again after a turn of the event loop until two readings agree, against ` +
        `the same before them, per lease; again with every lease under one ` +
        `lease session (\`LeaseSession.make\`, opened first), which keeps them with its one heartbeat. The memory store answers in the same ` +
        `tick, so the lock layer skips what guards against a slow store (the watchdog on a renew in flight, the ` +
        `release's time limit, the background give-back of an abandoned acquire); the second table is the same ` +
        `store behind \`LockStore.intercept\`, which the lock layer treats as any other store, so every path runs.\n\n` +
        MemoryCycle.render(rows, heldCounts) + "\n\n" + MemoryCycle.renderCycles(everyPath) + "\n\n" +
        linesNote(Lines.unavailable()) +
        linesRatio("cycles/s", lineRate(Lines.effect3Line), lineRate(Lines.effect4Line)) +
        `\n\nTarget: >= 50,000 cycles/s (20 µs per cycle). For scale, on this ` +
        `machine (CPU µs): one \`Effect.fork\` + \`Fiber.await\` of an empty effect costs ` +
        `${fixed(calibration.forkMicros, 1)}; the floor of \`withLock\`'s shape (the memory store's two calls, a ` +
        `heartbeat fiber forked and interrupted, the section forked and awaited, two spans, and no lock logic) costs ` +
        `${fixed(calibration.shapeFloorMicros, 1)} (the bench's process).`
    )
  }

  if (latency !== undefined) sections.push(Latency.section(latency, latencyOptions))

  if (shape !== undefined) {
    sections.push(Shape.section(shape, shapeOptions, RequestUnits.method, linesNote(Lines.dynamoUnavailable())))
  }

  if (runs("coldstart") && (!smoke || only !== undefined)) {
    const coldStart = await coldStartSection()
    if (coldStart !== undefined) sections.push(coldStart)
  }

  if (runs("sessiontakeover")) {
    log("takeover of locks under a session after SIGKILL")
    const result = await withServer("dynalite", (server) => SessionTakeover.run(server, sessionTakeoverOptions, log))
    sections.push(SessionTakeover.section(result, sessionTakeoverOptions))
  }

  if (runs("holdingcost")) {
    log("the cost of holding locks for an hour")
    const result = await withServer("dynalite", (server) => HoldingCost.run(server, holdingCostOptions, log))
    sections.push(HoldingCost.section(result, holdingCostOptions))
  }

  if (readWrite !== undefined) sections.push(ReadWriteMix.section(readWrite, contentionOptions))

  if (runs("taketogether") && !flag("no-local") && (!smoke || only !== undefined)) {
    const takeTogether = await takeTogetherSection()
    if (takeTogether !== undefined) sections.push(takeTogether)
  }

  const document = `# Benchmarks\n\n${machine()}\n\n` +
    `effect-distributed-lock ships a Redis backing only; it runs here on a minimal DynamoDB backing written for ` +
    `this bench (packages/bench/src/contenders/EffectDistributedLock.ts: mutex only, one conditional UpdateItem per ` +
    `operation). dynamodb-lock-client targets aws-sdk v2; it runs on a small v2-DocumentClient adapter over ` +
    `@aws-sdk/lib-dynamodb.\n\n${sections.join("\n\n")}\n` + findings()
  process.stdout.write(document)
  if (out !== undefined) {
    writeFileSync(out, document)
    log(`wrote ${out}`)
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
