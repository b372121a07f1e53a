/**
 * Contention on one key: worker processes of one contender (every handover goes through the store), and, for
 * Leasehold, fibers of one process (the local FIFO queue hands the lock over without the store).
 */
import * as Effect from "effect/Effect"
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as ContentionLoop from "./ContentionLoop.js"
import * as Drivers from "./Drivers.js"
import * as Lines from "./Lines.js"
import type { Acquisition, ClientConfig, ContentionRun, LoopOptions } from "./Protocol.js"
import type * as RequestUnits from "./RequestUnits.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, percentile, sorted, table } from "./Stats.js"
import type { Message } from "./worker.js"

export interface Result {
  readonly label: string
  readonly leaseMs: number
  readonly seconds: number
  readonly waitsPerContender: ReadonlyArray<ReadonlyArray<number>>
  readonly counts: Record<string, number>
  /** Request units of every request of the run (`RequestUnits.ts`). */
  readonly units: RequestUnits.Units
  /** Acquisitions whose lease ran out inside the section. */
  readonly lost: number
}

export interface Options {
  readonly holdMs: number
  readonly leaseMs: number
  readonly durationMs: number
  readonly pollIntervalMs?: number | undefined
  readonly yieldMs?: number | undefined
}

const waits = (acquisitions: ReadonlyArray<Acquisition>) => acquisitions.map((a) => a.enteredAt - a.askedAt)

const lostIn = (perContender: ReadonlyArray<ReadonlyArray<Acquisition>>) =>
  perContender.reduce((sum, acquisitions) => sum + acquisitions.filter((a) => a.lost === true).length, 0)

export const inProcess = async (server: ServerProcess, fibers: number, options: Options): Promise<Result> => {
  await server.reset()
  const started = Date.now()
  const loopOptions = {
    key: `fibers-${started}`,
    holdMs: options.holdMs,
    leaseMs: options.leaseMs,
    endAt: started + options.durationMs,
    contenders: fibers
  }
  const perFiber = await Effect.runPromise(
    Effect.all(Array.from({ length: fibers }, () => ContentionLoop.loop(loopOptions)), { concurrency: "unbounded" })
      .pipe(
        Effect.provide(ContentionLoop.storeLayer(server.clientConfig))
      )
  )
  const seconds = (Date.now() - started) / 1000
  return {
    label: `Leasehold, ${fibers} fibers, 1 process`,
    leaseMs: options.leaseMs,
    seconds,
    waitsPerContender: perFiber.map(waits),
    counts: await server.requests(),
    units: await server.units(),
    lost: lostIn(perFiber)
  }
}

export interface Run {
  readonly key: string
  /** Epoch ms. */
  readonly startAt: number
  readonly seconds: number
  readonly workers: ReadonlyArray<ContentionRun>
  readonly counts: Record<string, number>
  readonly units: RequestUnits.Units
}

/**
 * Runs `workers` worker processes of one contender on one key. `configFor` gives a worker its own endpoint (the
 * trace puts a recording proxy in front of each); `eventLoop` has each worker measure its event-loop delay. With a
 * `line`, the workers are that line's, under its Node.
 */
export const runWorkers = async (
  server: ServerProcess,
  id: Drivers.Id,
  workers: number,
  options: Options,
  trace?: { readonly configFor: (worker: number) => ClientConfig; readonly eventLoop: boolean },
  line?: Lines.Line
): Promise<Run> => {
  const script = fileURLToPath(new URL("./worker.ts", import.meta.url))
  const stdio = ["ignore", "inherit", "inherit", "ipc"] as const
  const children = Array.from(
    { length: workers },
    () =>
      line === undefined ?
        fork(script, [id], { execArgv: ["--conditions=@leasehold/source", "--import", "tsx"], stdio: [...stdio] }) :
        Lines.start(line, "worker.ts", [id], [...stdio])
  )
  // Start together once every worker has loaded: process start-up is not part of the measure.
  await Promise.all(children.map((child) =>
    new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve())
      child.once("exit", (code) => reject(new Error(`contention worker (${id}) exited with code ${code}`)))
    })
  ))
  await server.reset()
  const startAt = Date.now()
  const key = `processes-${id}-${startAt}`
  const contend: LoopOptions = {
    key,
    holdMs: options.holdMs,
    leaseMs: options.leaseMs,
    endAt: startAt + options.durationMs,
    contenders: workers,
    pollIntervalMs: options.pollIntervalMs,
    yieldMs: options.yieldMs
  }
  // One failed worker fails the run; the others must not outlive it.
  const runs = await Promise.all(children.map((child, i) =>
    new Promise<ContentionRun>((resolve, reject) => {
      child.once("message", (message: ContentionRun) => resolve(message))
      child.once(
        "exit",
        (code) => code !== 0 && reject(new Error(`contention worker (${id}) exited with code ${code}`))
      )
      const message: Message = {
        config: trace?.configFor(i) ?? server.clientConfig,
        contend,
        eventLoop: trace?.eventLoop ?? false
      }
      child.send(message)
    })
  )).catch((error: unknown) => {
    for (const child of children) child.kill("SIGKILL")
    throw error
  })
  const seconds = (Date.now() - startAt) / 1000
  const counts = await server.requests()
  return { key, startAt, seconds, workers: runs, counts, units: await server.units() }
}

/** `workers` processes of one contender on one key; with a `line`, Leasehold's lock on that line, under its Node. */
export const processes = async (
  server: ServerProcess,
  id: Drivers.Id,
  workers: number,
  options: Options,
  line?: Lines.Line
): Promise<Result> => {
  const driver = await Drivers.load(id)
  const leaseMs = driver.leaseMs(options.leaseMs)
  const run = await runWorkers(server, id, workers, { ...options, leaseMs }, undefined, line)
  return {
    label: `${line?.name ?? driver.name}, ${workers} processes`,
    leaseMs,
    seconds: run.seconds,
    waitsPerContender: run.workers.map((w) => waits(w.acquisitions)),
    counts: run.counts,
    units: run.units,
    lost: lostIn(run.workers.map((w) => w.acquisitions))
  }
}

/** One contention run's figures, as the tables print them. */
export interface Summary {
  readonly acquisitions: number
  readonly perSecond: number
  readonly waitP50: number
  readonly waitP99: number
  readonly waitMax: number
  readonly callsPerAcquisition: number
  readonly writesPerAcquisition: number
  readonly readsPerAcquisition: number
  readonly writeUnitsPerAcquisition: number
  readonly readUnitsPerAcquisition: number
  /** Most acquisitions of one contender / fewest. */
  readonly share: number
}

export const summarize = (r: Result): Summary => {
  const all = sorted(r.waitsPerContender.flat())
  const n = all.length
  const calls = Object.values(r.counts).reduce((a, b) => a + b, 0)
  const writes = (r.counts.UpdateItem ?? 0) + (r.counts.PutItem ?? 0) + (r.counts.DeleteItem ?? 0)
  const reads = (r.counts.GetItem ?? 0) + (r.counts.Query ?? 0) + (r.counts.Scan ?? 0)
  const shares = r.waitsPerContender.map((w) => w.length)
  return {
    acquisitions: n,
    perSecond: n / r.seconds,
    waitP50: percentile(all, 50),
    waitP99: percentile(all, 99),
    waitMax: all[n - 1] ?? Number.NaN,
    callsPerAcquisition: calls / n,
    writesPerAcquisition: writes / n,
    readsPerAcquisition: reads / n,
    writeUnitsPerAcquisition: r.units.write / n,
    readUnitsPerAcquisition: r.units.read / n,
    share: Math.max(...shares) / Math.max(1, Math.min(...shares))
  }
}

export const render = (results: ReadonlyArray<Result>): string =>
  table(
    [
      "setup",
      "lease ms",
      "acquisitions/s",
      "wait p50 ms",
      "wait p99 ms",
      "wait max ms",
      "store calls/acquisition",
      "writes",
      "reads",
      "write units",
      "read units",
      "share max/min"
    ],
    results.map((r) => {
      const s = summarize(r)
      return [
        r.label,
        fixed(r.leaseMs, 0),
        fixed(s.perSecond, 1),
        fixed(s.waitP50, 1),
        fixed(s.waitP99, 1),
        fixed(s.waitMax, 1),
        fixed(s.callsPerAcquisition, 2),
        fixed(s.writesPerAcquisition, 2),
        fixed(s.readsPerAcquisition, 2),
        fixed(s.writeUnitsPerAcquisition, 2),
        fixed(s.readUnitsPerAcquisition, 2),
        fixed(s.share, 2)
      ]
    })
  )

/**
 * The rows whose loops went on after a lease ran out inside the section, with how many did, as a sentence to print
 * under the table; empty when none did.
 */
export const lostNote = (results: ReadonlyArray<Result>): string => {
  const rows = results.filter((r) => r.lost > 0)
  return rows.length === 0 ?
    "" :
    `\n\nLeases lost inside the section (counted as acquisitions; the loop went on): ${
      rows.map((r) => `${r.label}: ${r.lost}`).join("; ")
    }.`
}

/** Each contender's waiting settings, as a markdown list for the text above the table. */
export const settings = async (): Promise<string> =>
  (await Promise.all([...Drivers.ids, ...Drivers.leaseholdOnly].map(Drivers.load)))
    .map((driver) => `- ${driver.name}: ${driver.contentionSettings}.`)
    .join("\n")
