/**
 * Reading a traced Leasehold contention run: every acquisition of every worker (from the workers) against every store
 * request (from the recording proxies), to say where long waits go. Prints markdown.
 */
import type { Acquisition, EventLoopDelay } from "./Protocol.js"
import { fixed, percentile, sorted, table } from "./Stats.js"
import type { Request } from "./TraceProxy.js"

export interface Input {
  readonly acquisitions: ReadonlyArray<ReadonlyArray<Acquisition>>
  readonly eventLoop: ReadonlyArray<EventLoopDelay | undefined>
  readonly requests: ReadonlyArray<Request>
  readonly seconds: number
  /** Fraction of the machine's CPU time busy during the run (all cores). */
  readonly machineBusy: number
  readonly cores: number
  /** Waits at least this long count as long. */
  readonly longMs: number
}

const dist = (values: ReadonlyArray<number>) => {
  const s = sorted(values)
  return [fixed(percentile(s, 50), 1), fixed(percentile(s, 90), 1), fixed(percentile(s, 99), 1), fixed(s.at(-1)!, 1)]
}

/** A worker's wait, with the store requests it sent during it and what the others did meanwhile. */
interface Wait {
  readonly worker: number
  readonly wait: number
  /** Ms from asking to its first request reaching the proxy (client work before the first attempt). */
  readonly beforeFirst: number
  readonly attempts: number
  /** Ms between the answer to a conflict's last request and the next attempt (sleep + client work + event loop). */
  readonly idle: ReadonlyArray<number>
  /** Acquisitions by other workers during this wait, and how many of them were by the worker that released last. */
  readonly othersWon: number
  readonly releaserWon: number
}

export const render = (input: Input): string => {
  const { requests } = input
  const acquires = requests.filter((r) => r.kind === "acquire")
  const won = acquires.filter((r) => r.status === 200)
  const releases = requests.filter((r) => r.kind === "release" && r.status === 200)

  // Who gets a freed lock: the first acquire to arrive after a release wins it.
  let byReleaser = 0
  const freeGaps: Array<number> = []
  const releaserLead: Array<number> = []
  for (const release of releases) {
    const next = won.find((r) => r.arrivedAt > release.arrivedAt)
    if (next === undefined) continue
    freeGaps.push(next.arrivedAt - release.answeredAt)
    if (next.worker === release.worker) {
      byReleaser++
      releaserLead.push(next.arrivedAt - release.answeredAt)
    }
  }
  let lastWinner = -1
  let streak = 0
  const streaks: Array<number> = []
  for (const r of won) {
    if (r.worker === lastWinner) streak++
    else {
      if (streak > 0) streaks.push(streak)
      streak = 1
      lastWinner = r.worker
    }
  }
  if (streak > 0) streaks.push(streak)

  const waits: Array<Wait> = []
  input.acquisitions.forEach((acquisitions, worker) => {
    const mine = requests.filter((r) => r.worker === worker)
    for (const a of acquisitions) {
      const during = mine.filter((r) => r.arrivedAt >= a.askedAt && r.arrivedAt <= a.enteredAt)
      const attempts = during.filter((r) => r.kind === "acquire")
      const idle: Array<number> = []
      for (let i = 1; i < attempts.length; i++) {
        const before = during.filter((r) => r.arrivedAt < attempts[i]!.arrivedAt).at(-1)!
        idle.push(attempts[i]!.arrivedAt - before.answeredAt)
      }
      const others = won.filter((r) => r.worker !== worker && r.arrivedAt > a.askedAt && r.arrivedAt < a.enteredAt)
      const releaserWon = others.filter((r) => {
        const release = releases.filter((x) => x.arrivedAt < r.arrivedAt).at(-1)
        return release?.worker === r.worker
      }).length
      waits.push({
        worker,
        wait: a.enteredAt - a.askedAt,
        beforeFirst: (during[0]?.arrivedAt ?? a.enteredAt) - a.askedAt,
        attempts: attempts.length,
        idle,
        othersWon: others.length,
        releaserWon
      })
    }
  })
  const long = waits.filter((w) => w.wait >= input.longMs)
  const short = waits.filter((w) => w.wait < input.longMs)
  const latency = (kind: string) => dist(requests.filter((r) => r.kind === kind).map((r) => r.answeredAt - r.arrivedAt))

  const n = waits.length
  const lines: Array<string> = []
  lines.push(
    `${n} acquisitions in ${fixed(input.seconds, 1)} s (${fixed(n / input.seconds, 1)}/s); ${requests.length} ` +
      `store requests (${fixed(requests.length / n, 2)} per acquisition: ${acquires.length} acquire writes, ` +
      `${acquires.length - won.length} of them conflicts, ${requests.filter((r) => r.kind === "reserve").length} ` +
      `reservations, ${requests.filter((r) => r.kind === "read").length} reads). Machine CPU busy ${
        fixed(100 * input.machineBusy, 0)
      } % of ${input.cores} cores.`
  )
  lines.push("")
  lines.push(
    `Freed lock taken by the worker that released it: ${byReleaser} of ${freeGaps.length} releases ` +
      `(${fixed((100 * byReleaser) / Math.max(1, freeGaps.length), 0)} %; a fair coin among 4 would be 25 %). ` +
      `Runs of consecutive acquisitions by one worker: mean ${
        fixed(streaks.reduce((a, b) => a + b, 0) / streaks.length, 2)
      }, max ${Math.max(...streaks)}.`
  )
  lines.push("")
  lines.push(table(["ms", "p50", "p90", "p99", "max"], [
    ["wait (all)", ...dist(waits.map((w) => w.wait))],
    ["release answered → next acquire arrives", ...dist(freeGaps)],
    ["… when the releaser takes it again", ...dist(releaserLead)],
    ["asked → first request arrives", ...dist(waits.map((w) => w.beforeFirst))],
    ["conflict answered → next attempt (sleep 15–45 ms + client)", ...dist(waits.flatMap((w) => w.idle))],
    ["acquire write at the server", ...latency("acquire")],
    ["read at the server", ...latency("read")],
    ["release at the server", ...latency("release")]
  ]))
  lines.push("")
  const describe = (label: string, group: ReadonlyArray<Wait>) => {
    const count = (f: (w: Wait) => number) => fixed(group.reduce((a, w) => a + f(w), 0) / Math.max(1, group.length), 1)
    return [
      label,
      String(group.length),
      count((w) => w.wait),
      count((w) => w.attempts),
      count((w) => w.othersWon),
      count((w) => w.releaserWon),
      fixed(percentile(sorted(group.flatMap((w) => w.idle)), 50), 1)
    ]
  }
  lines.push(
    table(["waits", "n", "mean wait ms", "attempts", "won by others meanwhile", "… by the releaser", "idle p50 ms"], [
      describe(`< ${input.longMs} ms`, short),
      describe(`>= ${input.longMs} ms`, long)
    ])
  )
  lines.push("")
  lines.push(table(
    ["worker", "acquisitions", "event-loop delay p50 ms", "p99 ms", "max ms", "CPU ms"],
    input.eventLoop.map((e, i) => [
      String(i),
      String(input.acquisitions[i]!.length),
      fixed(e?.p50 ?? Number.NaN, 1),
      fixed(e?.p99 ?? Number.NaN, 1),
      fixed(e?.max ?? Number.NaN, 1),
      fixed(e?.cpuMs ?? Number.NaN, 0)
    ])
  ))
  return lines.join("\n")
}
