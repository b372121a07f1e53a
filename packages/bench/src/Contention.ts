/**
 * Leasehold under contention on one key: fibers of one process (the local FIFO queue hands the lock over without the
 * store), and worker processes (every handover goes through the store).
 */
import * as Effect from "effect/Effect"
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as ContentionLoop from "./ContentionLoop.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, percentile, sorted, table } from "./Stats.js"

export interface Result {
  readonly label: string
  readonly seconds: number
  readonly waitsPerContender: ReadonlyArray<ReadonlyArray<number>>
  readonly counts: Record<string, number>
}

export interface Options {
  readonly holdMs: number
  readonly leaseMs: number
  readonly durationMs: number
}

export const inProcess = async (server: ServerProcess, fibers: number, options: Options): Promise<Result> => {
  await server.reset()
  const started = Date.now()
  const loopOptions = {
    key: `fibers-${started}`,
    holdMs: options.holdMs,
    leaseMs: options.leaseMs,
    endAt: started + options.durationMs
  }
  const waitsPerContender = await Effect.runPromise(
    Effect.all(Array.from({ length: fibers }, () => ContentionLoop.loop(loopOptions)), { concurrency: "unbounded" })
      .pipe(
        Effect.provide(ContentionLoop.storeLayer(server.clientConfig))
      )
  )
  const seconds = (Date.now() - started) / 1000
  return { label: `${fibers} fibers, 1 process`, seconds, waitsPerContender, counts: await server.requests() }
}

export const processes = async (server: ServerProcess, workers: number, options: Options): Promise<Result> => {
  const script = fileURLToPath(new URL("./worker.ts", import.meta.url))
  const children = Array.from(
    { length: workers },
    () => fork(script, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] })
  )
  // Start together once every worker has loaded: process start-up is not part of the measure.
  await Promise.all(children.map((child) => new Promise<void>((resolve) => child.once("message", () => resolve()))))
  await server.reset()
  const startAt = Date.now()
  const loopOptions = {
    key: `processes-${startAt}`,
    holdMs: options.holdMs,
    leaseMs: options.leaseMs,
    endAt: startAt + options.durationMs
  }
  const waitsPerContender = await Promise.all(children.map((child) =>
    new Promise<Array<number>>((resolve, reject) => {
      child.once("message", (message: { waits: Array<number> }) => resolve(message.waits))
      child.once("exit", (code) => code !== 0 && reject(new Error(`contention worker exited with code ${code}`)))
      child.send({ config: server.clientConfig, options: loopOptions })
    })
  ))
  const seconds = (Date.now() - startAt) / 1000
  return { label: `${workers} processes`, seconds, waitsPerContender, counts: await server.requests() }
}

export const render = (results: ReadonlyArray<Result>): string =>
  table(
    [
      "setup",
      "acquisitions/s",
      "wait p50 ms",
      "wait p99 ms",
      "wait max ms",
      "store calls/acquisition",
      "writes",
      "reads",
      "share max/min"
    ],
    results.map((r) => {
      const all = sorted(r.waitsPerContender.flat())
      const n = all.length
      const calls = Object.values(r.counts).reduce((a, b) => a + b, 0)
      const writes = (r.counts.UpdateItem ?? 0) + (r.counts.PutItem ?? 0) + (r.counts.DeleteItem ?? 0)
      const reads = (r.counts.GetItem ?? 0) + (r.counts.Query ?? 0) + (r.counts.Scan ?? 0)
      const shares = r.waitsPerContender.map((w) => w.length)
      return [
        r.label,
        fixed(n / r.seconds, 1),
        fixed(percentile(all, 50), 1),
        fixed(percentile(all, 99), 1),
        fixed(all[n - 1] ?? Number.NaN, 1),
        fixed(calls / n, 2),
        fixed(writes / n, 2),
        fixed(reads / n, 2),
        fixed(Math.max(...shares) / Math.max(1, Math.min(...shares)), 2)
      ]
    })
  )
