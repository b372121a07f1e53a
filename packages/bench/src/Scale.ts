/**
 * The scale table: N locks held at once by one process, heartbeating, on the DynamoDB store. Each N runs in a fresh
 * `scaleWorker` process (started with `--expose-gc`); its writes go through a `WriteLog` in the server process, which
 * notes when each one arrived. From those arrival times: how late the renews came against their schedule (the
 * acquiring write's arrival + k * heartbeat), and the write rate while every lock was held.
 */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Lines from "./Lines.js"
import type { ScaleHeld, ScaleReport, ScaleStart } from "./Protocol.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, percentile, sorted, table } from "./Stats.js"

/** The names of lease sessions' records begin with this (`LeaseSession.recordNamePrefix` of the core). */
const sessionRecordPrefix = "leasehold-session/"

export interface Options {
  readonly sizes: ReadonlyArray<number>
  readonly leaseMs: number
  /** How long every lock stays held once all are acquired: the window that lateness and write rate are read in. */
  readonly holdMs: number
  /** Acquisitions in flight at once, so that setting up 10,000 locks neither runs one by one nor floods the server. */
  readonly concurrency: number
  /** The sizes held again under one lease session, whose heartbeat alone renews. */
  readonly sessionSizes: ReadonlyArray<number>
}

export interface Result {
  readonly n: number
  /** The line whose worker held the locks, when not the bench's own Leasehold under the bench's Node. */
  readonly line?: Lines.Line | undefined
  /** Whether the locks were held under one lease session: the renews read are then the session's. */
  readonly session?: boolean | undefined
  readonly heartbeatMs: number
  readonly held: ScaleHeld
  readonly report: ScaleReport
  /** Lateness (ms) of every renew due in the hold window; a renew not seen by its end counts as late until then. */
  readonly lateness: ReadonlyArray<number>
  /** How many of those renews had not arrived when the window ended. */
  readonly missing: number
  readonly holdSeconds: number
  readonly writesPerSecond: number
  /** The server process's CPU over the window, % of one core. */
  readonly serverCpuPercent: number
  /** How long the server took to answer each write that arrived in the window (ms), sorted. */
  readonly answerMs: ReadonlyArray<number>
}

/** The library's default heartbeat is lease / 3; it is passed explicitly so that the schedule read here is known. */
const heartbeatsPerLease = 3

/**
 * The next message of a scale worker (`scaleWorker.ts`), or a failure if it exits first.
 */
export const nextMessage = <A>(child: ChildProcess): Promise<A> =>
  new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`scale worker exited with code ${code}`))
    child.once("exit", onExit)
    child.once("message", (message: A) => {
      child.off("exit", onExit)
      resolve(message)
    })
  })

/** Answer times of the writes that arrived in [from, to). */
const answersIn = (answered: ReadonlyArray<number>, from: number, to: number): Array<number> => {
  const inWindow: Array<number> = []
  for (let i = 0; i < answered.length; i += 2) {
    if (answered[i]! >= from && answered[i]! < to) inWindow.push(answered[i + 1]!)
  }
  return sorted(inWindow)
}

const totalWrites = (writes: Record<string, ReadonlyArray<number>>): number =>
  Object.values(writes).reduce((sum, times) => sum + times.length, 0)

/**
 * For each time a renew of a key is due (the acquiring write's arrival + k * heartbeat) inside [from, to): how long
 * until the first write to that key reached the server from half a heartbeat before then on. The half beat of slack
 * is for renews scheduled from when the acquire was sent, which arrive a little before a schedule counted from its
 * arrival: they are on time, not a heartbeat late. A write the store retried (its first try timed out but applied)
 * lands within half a beat of the first and so can not pass for a later renew. Early counts as 0. No write by `to`:
 * late until `to`.
 */
const latenessOf = (
  writes: Record<string, ReadonlyArray<number>>,
  keys: ReadonlyArray<string>,
  heartbeatMs: number,
  from: number,
  to: number
) => {
  const lateness: Array<number> = []
  let missing = 0
  for (const key of keys) {
    const times = sorted(writes[key] ?? [])
    // Each write makes the next renew due a heartbeat after it arrived; the first renew may come earlier, as may any.
    for (let i = 0; i < times.length; i++) {
      const due = times[i]! + heartbeatMs
      if (due < from || due >= to) continue
      const arrived = times[i + 1]
      if (arrived === undefined) missing++
      lateness.push(Math.max(0, (arrived ?? to) - due))
    }
  }
  return { lateness: sorted(lateness), missing }
}

const runOne = async (
  server: ServerProcess,
  n: number,
  options: Options,
  line?: Lines.Line,
  session = false
): Promise<Result> => {
  const heartbeatMs = options.leaseMs / heartbeatsPerLease
  const endpoint = await server.writeLog()
  // The worker's logs (a loss is logged) go to stderr with the bench's progress, not into the document.
  const child = line === undefined ?
    fork(fileURLToPath(new URL("./scaleWorker.ts", import.meta.url)), [], {
      execArgv: ["--conditions=@leasehold/source", "--import", "tsx", "--expose-gc"],
      stdio: ["ignore", 2, 2, "ipc"]
    }) :
    Lines.start(line, "scaleWorker.ts", [], ["ignore", 2, 2, "ipc"], ["--expose-gc"])
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  try {
    await nextMessage(child)
    const keyPrefix = `scale-${n}-${Date.now()}-`
    const start: ScaleStart = {
      config: { ...server.clientConfig, endpoint },
      keyPrefix,
      n,
      leaseMs: options.leaseMs,
      heartbeatMs,
      concurrency: options.concurrency,
      session
    }
    child.send(start)
    const held = await nextMessage<ScaleHeld>(child)
    const first = await server.writes()
    await new Promise((resolve) => setTimeout(resolve, options.holdMs))
    const last = await server.writes()
    const reported = nextMessage<ScaleReport>(child)
    child.send({ report: true })
    const report = await reported
    // Let it go before the next N starts: its leases are left to expire, nothing more is measured.
    await exited

    const failed = new Set(held.failedKeys)
    // Under a session, the renews due are the session record's: the locks have none of their own.
    const keys = session
      ? Object.keys(last.writes).filter((key) => key.startsWith(sessionRecordPrefix))
      : Array.from({ length: n }, (_, i) => `${keyPrefix}${i}`).filter((key) => !failed.has(key))
    const holdSeconds = (last.now - first.now) / 1000
    return {
      n,
      line,
      session,
      heartbeatMs,
      held,
      report,
      ...latenessOf(last.writes, keys, heartbeatMs, first.now, last.now),
      holdSeconds,
      writesPerSecond: (totalWrites(last.writes) - totalWrites(first.writes)) / holdSeconds,
      serverCpuPercent: (100 * (last.cpuMs - first.cpuMs)) / (last.now - first.now),
      answerMs: answersIn(last.answered, first.now, last.now)
    }
  } finally {
    child.kill()
  }
}

/**
 * Each size in turn, then each session size under one lease session; with a `line`, held by that line's worker under
 * its Node (its own sizes only).
 */
export const run = async (
  server: ServerProcess,
  options: Options,
  log: (line: string) => void,
  line?: Lines.Line
): Promise<Array<Result>> => {
  const results: Array<Result> = []
  const runs = [
    ...options.sizes.map((n) => ({ n, session: false })),
    ...(line === undefined ? options.sessionSizes.map((n) => ({ n, session: true })) : [])
  ]
  for (const { n, session } of runs) {
    log(`scale: ${n} held locks${line === undefined ? "" : `, ${line.name}`}${session ? ", under one session" : ""}`)
    const result = await runOne(server, n, options, line, session)
    const p99 = fixed(percentile(result.lateness, 99), 1)
    const { atRisk, lost } = result.report
    log(`  setup ${fixed(result.held.setupMs / 1000, 1)} s, lateness p99 ${p99} ms, ${lost} lost, ${atRisk} at risk`)
    results.push(result)
  }
  return results
}

const kib = (bytes: number, n: number) => bytes / 1024 / n

/** A row's first cell: N, and the line when the row is one of the lines'. */
const held = (r: Result): string =>
  `${r.n.toLocaleString("en-US")}${r.line === undefined ? "" : `, ${r.line.name}`}${
    r.session === true ? ", under one session" : ""
  }`

/** The writes a window should see: one renew per lock per heartbeat, or under a session the session's alone. */
const expectedWrites = (r: Result): number => (r.session === true ? 1 : r.n) / (r.heartbeatMs / 1000)

/** Two tables: what it takes to set N locks up and keep them in memory, and how their heartbeats fared. */
export const render = (results: ReadonlyArray<Result>): string =>
  table(
    ["N held", "setup s", "not acquired", "heap KiB/lock", "of it, bench's fiber KiB/lock"],
    results.map((r) => [
      held(r),
      fixed(r.held.setupMs / 1000, 1),
      fixed(r.held.failed, 0),
      fixed(kib(r.report.heapHeld - r.report.heapBaseline, r.n), 2),
      fixed(kib(r.report.heapHarness - r.report.heapBaseline, r.n), 2)
    ])
  ) + "\n\n" + table(
    [
      "N held",
      "renews due",
      "not seen by the end",
      "lateness p50 ms",
      "lateness p99 ms",
      "lateness max ms",
      "lost",
      "writes/s",
      "expected: N (1 under a session) / heartbeat",
      "server answer p99 ms",
      "client event-loop delay p99 ms",
      "client CPU %",
      "server CPU %",
      "client CPU ms/write",
      "server CPU ms/write"
    ],
    results.map((r) => [
      held(r),
      fixed(r.lateness.length, 0),
      fixed(r.missing, 0),
      fixed(percentile(r.lateness, 50), 1),
      fixed(percentile(r.lateness, 99), 1),
      fixed(r.lateness[r.lateness.length - 1] ?? Number.NaN, 1),
      fixed(r.report.lost, 0),
      fixed(r.writesPerSecond, 1),
      fixed(expectedWrites(r), 1),
      fixed(percentile(r.answerMs, 99), 1),
      fixed(r.report.loopDelayP99Ms, 1),
      fixed((100 * r.report.cpuMs) / r.report.wallMs, 0),
      fixed(r.serverCpuPercent, 0),
      fixed(r.report.cpuMs / windowWrites(r), 2),
      fixed((r.serverCpuPercent * 10 * r.holdSeconds) / windowWrites(r), 2)
    ])
  ) + shortfalls(results)

const windowWrites = (r: Result) => r.writesPerSecond * r.holdSeconds

/** Why acquisitions failed, as the worker counted them. */
const reasons = (held: ScaleHeld): string => {
  const counted = Object.entries(held.failureReasons ?? {}).sort((a, b) => b[1] - a[1])
  return counted.length === 0
    ? ""
    : ` (${counted.map(([reason, n]) => `${n.toLocaleString("en-US")} with ${JSON.stringify(reason)}`).join("; ")})`
}

/** Says in words which N could not be held, rather than leaving it to a reader of the "lost" column. */
const shortfalls = (results: ReadonlyArray<Result>): string => {
  const short = results.filter((r) => r.report.lost > 0 || r.held.failed > 0)
  if (short.length === 0) return ""
  return "\n\n" +
    short.map((r) =>
      r.session === true
        ? `N = ${r.n.toLocaleString("en-US")} under one session: ${r.report.lost.toLocaleString("en-US")} of ` +
          `${r.held.acquired.toLocaleString("en-US")} leases lost by the end of the window, and ` +
          `${r.held.failed.toLocaleString("en-US")} acquisitions failed during the setup${reasons(r.held)}.`
        : `N = ${r.n.toLocaleString("en-US")} was not held on this machine: ${
          r.report.lost.toLocaleString("en-US")
        } of ` +
          `${r.held.acquired.toLocaleString("en-US")} leases lost by the end of the window and ` +
          `${r.held.failed.toLocaleString("en-US")} acquisitions failed${reasons(r.held)}. Holding it takes ` +
          `${
            fixed(expectedWrites(r), 0)
          } renews/s: the CPU per write above times that rate estimates the cores it takes.`
    ).join(" ")
}

/** The whole markdown section, so that the bench's main stays a list of sections. */
export const section = (results: ReadonlyArray<Result>, options: Options): string =>
  `## 4. Scale: N locks held by one process, heartbeating (Leasehold, embedded dynalite)\n\n` +
  `Each N runs in a fresh process started with \`--expose-gc\`. It acquires N distinct keys with \`Lock.acquire\` ` +
  `(lease ${fixed(options.leaseMs / 1000, 1)} s, heartbeat lease / 3), each in a fiber of its own that keeps its ` +
  `scope open, ${options.concurrency} acquisitions in flight at once; setup = first acquire to the last one done ` +
  `(not acquired: acquisitions that failed). Then all stay held for ${fixed(options.holdMs / 1000, 1)} s, the ` +
  `window every other column is read in: a whole number of heartbeats, so every lock has as many renews due in it. ` +
  `**Heap**: \`heapUsed\` after forced GCs at the end of the window, minus the same after a warm-up (as many ` +
  `concurrent acquire + release as the setup runs, so the client's sockets are in the baseline) with nothing held, ` +
  `divided by N. It includes the bench's own fiber and scope per lock, measured alone (on 1,000 idle fibers) in the ` +
  `next column; a lease already lost has given its memory back.\n\n` +
  `**Lateness**: the client's writes pass through a proxy in the server process that notes when each one arrived, ` +
  `by key. A renew of a key is due a heartbeat after the previous write to that key arrived (the first one may ` +
  `come as early as half a heartbeat after the acquire: first renews are spread); its lateness is the time from ` +
  `then to the next write's arrival, 0 if early, so each renew's own delay counts, drift included. Every renew due ` +
  `in the window counts; one not seen by the window's end counts as late until then ("not seen"). **Lost**: leases whose \`status\` is \`Lost\` at the end ` +
  `of the window (target 0). **Writes/s**: writes arriving at the server in the window, against N / heartbeat. ` +
  `**Server answer**: from a write's arrival at the proxy to its answer leaving it (dynalite and the proxy, no ` +
  `client time). **Event-loop delay**: \`monitorEventLoopDelay\` in the holding process over the window, how long ` +
  `its timers and I/O waited for the thread. **CPU**: the holding process's and the server process's over the ` +
  `window, in % of one core and per write that reached the server in it. **Under one session**: the same N held ` +
  `under one lease session (\`LeaseSession.layer\`, same lease and heartbeat), whose heartbeat alone renews: its ` +
  `renews are the ones due, and every lock's status is the session's.\n\n` + render(results)
