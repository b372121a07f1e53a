/**
 * Takeover after SIGKILL: a worker process holds a lock (heartbeating), is killed, and the bench process, already
 * waiting for the lock, takes it over. Measured from the kill to the takeover, against the bound the mode promises:
 * absolute mode takes over at leaseUntil + maxClockSkew, observed mode after watching the lease stay unrenewed for a
 * full lease.
 */
import * as Lock from "@leasehold/lock/Lock"
import * as Effect from "effect/Effect"
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as ContentionLoop from "./ContentionLoop.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, median, spread, table } from "./Stats.js"

export interface Trial {
  readonly takeoverMs: number
  readonly calls: number
}

export interface Result {
  readonly mode: "absolute" | "observed"
  readonly leaseMs: number
  readonly maxClockSkewMs: number
  readonly trials: ReadonlyArray<Trial>
}

const trial = async (
  server: ServerProcess,
  options: Lock.LockOptions,
  leaseMs: number,
  key: string
): Promise<Trial> => {
  const child = fork(fileURLToPath(new URL("./worker.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const died = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`takeover worker exited with code ${code} before holding`)))
  )
  await Promise.race([new Promise<void>((resolve) => child.once("message", () => resolve())), died])
  const held = Promise.race([new Promise<void>((resolve) => child.once("message", () => resolve())), died])
  child.send({ config: server.clientConfig, hold: { key, options } })
  await held
  // Kill between two heartbeats, after at least one renew.
  await new Promise((resolve) => setTimeout(resolve, leaseMs * (0.5 + Math.random() * 0.2)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  await server.reset()
  child.kill("SIGKILL")
  const killedAt = performance.now()
  await exited
  const takeoverMs = await Effect.runPromise(
    Lock.withLock(key, Effect.sync(() => performance.now() - killedAt), { ...options, wait: "forever" }).pipe(
      Effect.provide(ContentionLoop.storeLayer(server.clientConfig))
    )
  )
  const counts = await server.requests()
  return { takeoverMs, calls: Object.values(counts).reduce((a, b) => a + b, 0) }
}

export const run = async (server: ServerProcess, trials: number, leaseMs: number): Promise<Array<Result>> => {
  const results: Array<Result> = []
  const maxClockSkewMs = leaseMs / 2
  for (const mode of ["absolute", "observed"] as const) {
    const options: Lock.LockOptions = {
      // Plain milliseconds: the options cross IPC to the worker, and a Duration would not survive it.
      lease: leaseMs,
      maxClockSkew: maxClockSkewMs,
      takeover: mode
    }
    const done: Array<Trial> = []
    for (let i = 0; i < trials; i++) {
      done.push(await trial(server, options, leaseMs, `takeover-${mode}-${Date.now()}-${i}`))
    }
    results.push({ mode, leaseMs, maxClockSkewMs, trials: done })
  }
  return results
}

export const render = (results: ReadonlyArray<Result>): string =>
  table(
    [
      "takeover mode",
      "lease ms",
      "maxClockSkew ms",
      "bound: at most ms",
      "kill → takeover ms",
      "store calls while waiting"
    ],
    results.map((r) => {
      const times = r.trials.map((t) => t.takeoverMs)
      return [
        r.mode,
        fixed(r.leaseMs, 0),
        fixed(r.maxClockSkewMs, 0),
        // Absolute: the last renew's lease end plus the skew allowance, at most a lease plus the skew after the kill.
        // Observed: a full lease watched unchanged, after first seeing it (at most a lease after the kill).
        fixed(r.mode === "absolute" ? r.leaseMs + r.maxClockSkewMs : 2 * r.leaseMs, 0),
        spread(times, 0),
        fixed(median(r.trials.map((t) => t.calls)), 0)
      ]
    })
  )
