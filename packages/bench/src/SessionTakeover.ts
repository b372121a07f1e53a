/**
 * Takeover after SIGKILL of a process holding many locks under one lease session: the scale worker holds N locks
 * under one session (one heartbeat for all of them), is killed between two of the session's heartbeats, and this
 * process, asking for every lock at once right after the kill (as that many waiters would), takes each over once it has judged
 * the session dead from the session's record. Measured from the kill to each lock's section, with the store calls
 * all of it took, against the bound a single lock's takeover has: the lease plus the skew bound (absolute takeover).
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { clientConfig, tables } from "./Contender.js"
import type { ScaleHeld, ScaleStart } from "./Protocol.js"
import { nextMessage } from "./Scale.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, percentile, sorted, table } from "./Stats.js"

export interface Options {
  readonly n: number
  readonly leaseMs: number
  readonly maxClockSkewMs: number
  /** The worker's acquisitions in flight during its setup. Every lock's takeover is asked for at once. */
  readonly concurrency: number
}

export interface Result {
  readonly n: number
  /** Ms from the kill to each lock's section, sorted; a lock not taken within the wait is missing. */
  readonly takeoverMs: ReadonlyArray<number>
  /** Store calls from the kill to the last takeover, by DynamoDB operation. */
  readonly calls: Record<string, number>
}

/** Holds `options.n` locks under one session in a worker, kills it, and takes every lock over. */
export const run = async (server: ServerProcess, options: Options, log: (line: string) => void): Promise<Result> => {
  const heartbeatMs = Math.round(options.leaseMs / 3)
  const child = fork(fileURLToPath(new URL("./scaleWorker.ts", import.meta.url)), [], {
    execArgv: ["--conditions=@leasehold/source", "--import", "tsx", "--expose-gc"],
    stdio: ["ignore", 2, 2, "ipc"]
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const keyPrefix = `session-takeover-${options.n}-${Date.now()}-`
  try {
    await nextMessage(child)
    const start: ScaleStart = {
      config: server.clientConfig,
      keyPrefix,
      n: options.n,
      leaseMs: options.leaseMs,
      heartbeatMs,
      concurrency: options.concurrency,
      session: true
    }
    child.send(start)
    const held = await nextMessage<ScaleHeld>(child)
    log(`session takeover: ${held.acquired} locks held under one session, ${held.failed} not acquired`)
    // Between two of the session's heartbeats, after at least one renew.
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * (1.2 + Math.random() * 0.6)))
    await server.reset()
    child.kill("SIGKILL")
    const killedAt = performance.now()
    await exited
    const failed = new Set(held.failedKeys)
    const keys = Array.from({ length: options.n }, (_, i) => `${keyPrefix}${i}`).filter((key) => !failed.has(key))
    const runtime = ManagedRuntime.make(
      DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(server.clientConfig) })
    )
    const takeoverMs: Array<number> = []
    try {
      await runtime.runPromise(Effect.forEach(
        keys,
        (key) =>
          Effect.ignore(Lock.withLock(
            key,
            Effect.sync(() => takeoverMs.push(performance.now() - killedAt)),
            {
              lease: Duration.millis(options.leaseMs),
              maxClockSkew: Duration.millis(options.maxClockSkewMs),
              wait: Duration.millis(10 * (options.leaseMs + options.maxClockSkewMs))
            }
          )),
        { concurrency: "unbounded", discard: true }
      ))
    } finally {
      await runtime.dispose()
    }
    return { n: keys.length, takeoverMs: sorted(takeoverMs), calls: await server.requests() }
  } finally {
    child.kill("SIGKILL")
  }
}

/** The markdown section. */
export const section = (result: Result, options: Options): string => {
  const bound = options.leaseMs + options.maxClockSkewMs
  const calls = Object.values(result.calls).reduce((sum, n) => sum + n, 0)
  const byOperation = Object.entries(result.calls).map(([operation, n]) => `${operation} ${n}`).join(", ")
  return `## 10. Takeover after SIGKILL of a process holding ${result.n.toLocaleString("en-US")} locks under one ` +
    `lease session (embedded dynalite)\n\n` +
    `A worker holds ${result.n.toLocaleString("en-US")} locks under one session (\`LeaseSession.layer\`, lease ` +
    `${fixed(options.leaseMs / 1000, 1)} s, heartbeat lease / 3) and is killed with SIGKILL between two of the ` +
    `session's heartbeats. This process then asks for every lock at once (absolute ` +
    `takeover, maxClockSkew ${fixed(options.maxClockSkewMs / 1000, 1)} s) and takes each over once it has judged the ` +
    `session dead from the session's record. Time from the kill to each lock's section; store calls from the kill to ` +
    `the last takeover, counted at the server. A single lock's bound in absolute mode is lease + maxClockSkew = ` +
    `${fixed(bound / 1000, 1)} s.\n\n` +
    table(
      [
        "locks",
        "taken over",
        "first takeover ms",
        "takeover p50 ms",
        "takeover p99 ms",
        "takeover max ms",
        "bound ms",
        "store calls",
        "calls per lock"
      ],
      [[
        result.n.toLocaleString("en-US"),
        result.takeoverMs.length.toLocaleString("en-US"),
        fixed(result.takeoverMs[0] ?? Number.NaN, 0),
        fixed(percentile(result.takeoverMs, 50), 0),
        fixed(percentile(result.takeoverMs, 99), 0),
        fixed(result.takeoverMs[result.takeoverMs.length - 1] ?? Number.NaN, 0),
        fixed(bound, 0),
        calls.toLocaleString("en-US"),
        fixed(calls / Math.max(1, result.takeoverMs.length), 2)
      ]]
    ) + `\n\nStore calls by operation: ${byOperation}.`
}
