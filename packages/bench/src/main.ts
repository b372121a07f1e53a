/**
 * `npm run bench`: Leasehold against the raw SDK floor and the Node peers, printed as markdown tables and written to
 * BENCHMARKS.md with the machine, versions and command. `npm run bench -- --smoke` runs a few iterations and writes
 * nothing (CI); `--out <file>` writes elsewhere; `--only <section,...>` runs only those sections (uncontended,
 * contention, takeover, latency, scale, local, memory) and writes nothing unless `--out` is given.
 */
import { execSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import type { Contender } from "./Contender.js"
import { createTables } from "./Contender.js"
import * as Deliveryhero from "./contenders/Deliveryhero.js"
import * as DynamodbLockClient from "./contenders/DynamodbLockClient.js"
import * as EffectDistributedLock from "./contenders/EffectDistributedLock.js"
import * as Leasehold from "./contenders/Leasehold.js"
import * as RawFloor from "./contenders/RawFloor.js"
import * as Contention from "./Contention.js"
import * as Drivers from "./Drivers.js"
import * as Latency from "./Latency.js"
import * as MemoryCycle from "./MemoryCycle.js"
import * as Scale from "./Scale.js"
import * as ServerProcess from "./ServerProcess.js"
import { fixed } from "./Stats.js"
import * as Takeover from "./Takeover.js"
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
    takeoverLeaseMs: 400
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
    takeoverLeaseMs: 1_000
  }
const contention = { holdMs: 5, leaseMs: 300, fibers: 16 }
// Lease 30 s (heartbeat 10 s) held 40 s: four renews per lock in the window, a whole number of heartbeats.
const scaleOptions: Scale.Options = smoke
  ? { sizes: [20], leaseMs: 1_000, holdMs: 1_000, concurrency: 10 }
  : { sizes: [1_000, 10_000], leaseMs: 30_000, holdMs: 40_000, concurrency: 50 }
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

const uncontended = async (server: ServerProcess.ServerProcess, makers: ReadonlyArray<typeof Leasehold.make>) => {
  const contenders: Array<Contender> = makers.map((make) => make(server.clientConfig))
  try {
    return await Uncontended.run(server, contenders, settings, log)
  } finally {
    for (const contender of contenders) await contender.close()
  }
}

const scale = async (): Promise<string> =>
  Scale.section(await withServer("dynalite", (server) => Scale.run(server, scaleOptions, log)), scaleOptions)

/** The hand-written reading of the numbers (profiles, causes), kept next to the bench and appended to the output. */
const findings = (): string => {
  try {
    return "\n" + readFileSync(fileURLToPath(new URL("../FINDINGS.md", import.meta.url)), "utf8")
  } catch {
    return ""
  }
}

const main = async () => {
  const sections: Array<string> = []

  const { contended, dynalite, takeover, latency } = await withServer("dynalite", async (server) => {
    const dynalite = runs("uncontended")
      ? await uncontended(server, [
        RawFloor.make,
        Leasehold.make,
        DynamodbLockClient.make,
        Deliveryhero.make,
        EffectDistributedLock.make
      ])
      : undefined
    const contended: Array<Contention.Result> = []
    if (runs("contention")) {
      const options = { holdMs: contention.holdMs, leaseMs: contention.leaseMs, durationMs: settings.contentionMs }
      for (const id of Drivers.ids) {
        log(`contention: ${id}, ${settings.workers} processes`)
        contended.push(await Contention.processes(server, id, settings.workers, options))
      }
      log(`contention: leader election, ${settings.workers} processes`)
      contended.push(await Contention.processes(server, "leasehold-election", settings.workers, options))
      log(`contention: ${contention.fibers} fibers`)
      contended.push(await Contention.inProcess(server, contention.fibers, options))
    }
    if (runs("takeover")) log("takeover after SIGKILL")
    const takeover = runs("takeover")
      // Smoke: each contender's first mode, to stay short.
      ? await Takeover.run(server, Drivers.ids, settings.takeoverTrials, settings.takeoverLeaseMs, smoke)
      : undefined
    const latency = runs("latency") ? await Latency.run(server, latencyOptions, log) : undefined
    return { dynalite, contended, takeover, latency }
  })
  if (dynalite !== undefined) {
    const floor = Uncontended.medianRate(dynalite.get("raw SDK floor")!)
    const leasehold = Uncontended.medianRate(dynalite.get("Leasehold")!)
    const bestPeer = Math.max(
      ...[...dynalite].filter(([name]) => name !== "raw SDK floor" && name !== "Leasehold").map(([, rounds]) =>
        Uncontended.medianRate(rounds)
      )
    )
    sections.push(
      `## 1. Uncontended acquire + release (embedded dynalite, server in its own process)\n\n` +
        `${settings.rounds} rounds of ${settings.roundMs} ms per contender, interleaved; median (min–max) over rounds. ` +
        `Each cycle acquires and releases one key; lease 30 s, heartbeat on (lease / 3) where the library has one. ` +
        `Writes and reads are counted by the proxy in front of the server. CPU is the bench process's ` +
        `(\`process.cpuUsage\`), which holds only the clients.\n\n` +
        Uncontended.render(dynalite) +
        `\n\nLeasehold / raw floor: ${fixed(leasehold / floor, 2)}x (target >= 0.9x). ` +
        `Leasehold / best peer: ${fixed(leasehold / bestPeer, 2)}x (target >= 1.5x).`
    )
  }

  if (contended.length > 0) {
    sections.push(
      `## 2. Contention on one key (embedded dynalite)\n\n` +
        `Each contender loops for ${settings.contentionMs} ms: acquire the key, waiting as its library waits, hold ` +
        `it ${contention.holdMs} ms, release (Leasehold: \`withLock(key, sleep ${contention.holdMs} ms, { lease: ` +
        `${contention.leaseMs} ms, wait: "forever" })\`). Wait = from asking to entering the section. Store calls ` +
        `are counted at the server. Share = most acquisitions of one contender / fewest. Waiting settings (lease ` +
        `${contention.leaseMs} ms for all):\n\n` + await Contention.settings() + "\n\n" + Contention.render(contended)
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
    const local = await withServer("dynamodb-local", async (server) => {
      const rounds = await uncontended(server, [RawFloor.make, Leasehold.make])
      // DynamoDB Local returns the holder with a failed condition (dynalite does not): the calls a conflict costs
      // on DynamoDB itself.
      log(`contention on DynamoDB Local: leasehold, ${settings.workers} processes`)
      const contended = await Contention.processes(server, "leasehold", settings.workers, {
        holdMs: contention.holdMs,
        leaseMs: contention.leaseMs,
        durationMs: settings.contentionMs
      })
      return { rounds, contended }
    })
      .catch((error: unknown) => {
        log(`DynamoDB Local did not run: ${String(error)}`)
        return undefined
      })
    if (local !== undefined) {
      const ratio = Uncontended.medianRate(local.rounds.get("Leasehold")!) /
        Uncontended.medianRate(local.rounds.get("raw SDK floor")!)
      sections.push(
        `## 6. Uncontended acquire + release on AWS DynamoDB Local (in memory, its own JVM)\n\n` +
          `Same method as table 1.\n\n${Uncontended.render(local.rounds)}\n\nLeasehold / raw floor: ` +
          `${fixed(ratio, 2)}x.\n\nContention as in table 2, on DynamoDB Local, which returns the holder with a ` +
          `failed condition (\`ReturnValuesOnConditionCheckFailure\`) where dynalite needs a read per conflict:\n\n` +
          Contention.render([local.contended])
      )
    }
  }

  if (runs("memory")) {
    log("memory store")
    const memory = await MemoryCycle.run(settings.memoryRounds, settings.memoryRoundMs)
    const calibration = await MemoryCycle.calibrate()
    const heldCounts = smoke ? [100, 400] : [1_000, 4_000]
    const held: Array<number> = []
    for (const n of heldCounts) held.push(await MemoryCycle.heldInOneScope(n))
    sections.push(
      `## 5. Memory store, uncontended\n\n${settings.memoryRounds} rounds of ${settings.memoryRoundMs} ms ` +
        `(after one warm-up round); \`Lock.withLock(name, Effect.void)\` on \`LockStore.layerMemory\`.\n\n` +
        MemoryCycle.render(memory) + `\n\nTarget: >= 50,000 cycles/s (20 µs per cycle). For scale, on this ` +
        `machine (CPU µs): one \`Effect.fork\` + \`Fiber.await\` of an empty effect costs ` +
        `${fixed(calibration.forkMicros, 1)}; the floor of \`withLock\`'s shape (the memory store's two calls, a ` +
        `heartbeat fiber forked and interrupted, the section forked and awaited, two spans, and no lock logic) costs ` +
        `${fixed(calibration.shapeFloorMicros, 1)}.\n\nHeap per lease, leases acquired by one fiber into one scope ` +
        `and held there (memory store, heartbeats running): ` +
        heldCounts.map((n, i) => `${fixed(held[i]! / 1024, 1)} KiB with ${n.toLocaleString("en-US")} held`).join(", ") +
        "."
    )
  }

  if (latency !== undefined) sections.push(Latency.section(latency, latencyOptions))

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
