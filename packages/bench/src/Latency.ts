/**
 * The uncontended and contention tables again, with a fixed network delay injected per request: a delaying proxy
 * (`DelayProxy.ts`, its own process) between every client and the server holds each request and each response
 * `delayMs`. On the embedded server the clients are CPU-bound; against DynamoDB each call costs a round trip, and
 * these tables show what remains of the differences when it does.
 */
import { type Contender } from "./Contender.js"
import * as Deliveryhero from "./contenders/Deliveryhero.js"
import * as DynamodbLockClient from "./contenders/DynamodbLockClient.js"
import * as EffectDistributedLock from "./contenders/EffectDistributedLock.js"
import * as Leasehold from "./contenders/Leasehold.js"
import * as RawFloor from "./contenders/RawFloor.js"
import * as Contention from "./Contention.js"
import * as DelayProxy from "./DelayProxy.js"
import * as Drivers from "./Drivers.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, median, spread, table } from "./Stats.js"
import * as Uncontended from "./Uncontended.js"

export interface Options {
  /** Delay each way, ms: a request waits this long before the server sees it, and its response as long again. */
  readonly delaysMs: ReadonlyArray<number>
  readonly uncontended: Uncontended.Options
  readonly workers: number
  readonly holdMs: number
  readonly leaseMs: number
  readonly contentionMs: number
}

export interface Result {
  readonly delayMs: number
  readonly uncontended: Map<string, Array<Uncontended.RoundResult>>
  /** In the order of `Drivers.ids`. */
  readonly contended: ReadonlyArray<{ readonly id: Drivers.Id; readonly result: Contention.Result }>
}

const floorName = "raw SDK floor"
const makers = [RawFloor.make, Leasehold.make, DynamodbLockClient.make, Deliveryhero.make, EffectDistributedLock.make]

export const run = async (
  server: ServerProcess,
  options: Options,
  log: (line: string) => void
): Promise<Array<Result>> => {
  const results: Array<Result> = []
  for (const delayMs of options.delaysMs) {
    const proxy = await DelayProxy.spawn(server.clientConfig.endpoint, delayMs)
    try {
      // The server as the clients see it: every call through the proxy; counts and resets still at the server.
      const delayed: ServerProcess = { ...server, clientConfig: { ...server.clientConfig, endpoint: proxy.endpoint } }
      log(`latency ${delayMs} ms each way: uncontended`)
      const contenders: Array<Contender> = makers.map((make) => make(delayed.clientConfig))
      const uncontended = await Uncontended.run(delayed, contenders, options.uncontended, log)
        .finally(() => Promise.all(contenders.map((contender) => contender.close())))
      const contended: Array<{ id: Drivers.Id; result: Contention.Result }> = []
      for (const id of Drivers.ids) {
        log(`latency ${delayMs} ms each way: contention, ${id}, ${options.workers} processes`)
        const result = await Contention.processes(delayed, id, options.workers, {
          holdMs: options.holdMs,
          leaseMs: options.leaseMs,
          durationMs: options.contentionMs
        })
        contended.push({ id, result })
      }
      results.push({ delayMs, uncontended, contended })
    } finally {
      await proxy.close()
    }
  }
  return results
}

const best = <A>(entries: ReadonlyArray<A>, isPeer: (a: A) => boolean, rate: (a: A) => number) =>
  entries.filter(isPeer).reduce<A | undefined>(
    (top, a) => (top === undefined || rate(a) > rate(top) ? a : top),
    undefined
  )

const renderUncontended = (results: Map<string, Array<Uncontended.RoundResult>>): string => {
  const entries = [...results]
  const floor = Uncontended.medianRate(results.get(floorName)!)
  const bestPeer = best(
    entries,
    ([name]) => name !== floorName && name !== "Leasehold",
    ([, rounds]) => Uncontended.medianRate(rounds)
  )
  const bestRate = bestPeer === undefined ? Number.NaN : Uncontended.medianRate(bestPeer[1])
  return table(
    ["contender", "cycles/s", "p50 ms", "p99 ms", "store calls/cycle", "cycles/s ÷ raw floor", "cycles/s ÷ best peer"],
    entries.map(([name, rounds]) => {
      const rate = Uncontended.medianRate(rounds)
      return [
        name,
        spread(rounds.map((r) => r.cycles / r.seconds), 0),
        spread(rounds.map((r) => r.p50), 2),
        spread(rounds.map((r) => r.p99), 2),
        fixed(median(rounds.map((r) => r.writesPerCycle + r.readsPerCycle)), 2),
        fixed(rate / floor, 2),
        fixed(rate / bestRate, 2)
      ]
    })
  ) + `\n\nBest peer: ${bestPeer?.[0] ?? "none"}.`
}

/** Most acquisitions a lock could make: each handover waits a response, the hold, and a release request. */
const ceiling = (delayMs: number, holdMs: number) => 1000 / (holdMs + 2 * delayMs)

const renderContention = (results: Result["contended"], delayMs: number, holdMs: number): string => {
  const rows = results.map(({ id, result }) => ({ id, label: result.label, summary: Contention.summarize(result) }))
  const bestPeer = best(rows, (row) => row.id !== "leasehold", (row) => row.summary.perSecond)
  const bestRate = bestPeer?.summary.perSecond ?? Number.NaN
  const top = ceiling(delayMs, holdMs)
  return table(
    [
      "setup",
      "acquisitions/s",
      "wait p50 ms",
      "wait p99 ms",
      "store calls/acquisition",
      "share max/min",
      "acquisitions/s ÷ ceiling",
      "acquisitions/s ÷ best peer"
    ],
    rows.map(({ label, summary: s }) => [
      label,
      fixed(s.perSecond, 1),
      fixed(s.waitP50, 1),
      fixed(s.waitP99, 1),
      fixed(s.callsPerAcquisition, 2),
      fixed(s.share, 2),
      fixed(s.perSecond / top, 2),
      fixed(s.perSecond / bestRate, 2)
    ])
  ) + `\n\nCeiling: ${fixed(top, 1)} acquisitions/s. Best peer: ${bestPeer?.label ?? "none"}.`
}

export const section = (results: ReadonlyArray<Result>, options: Options): string =>
  `## 7. Network latency injected per request (embedded dynalite)\n\n` +
  `A delaying proxy, in its own process, stands between every client and the server: each request waits the ` +
  `delay before it is forwarded, and its response waits it again before it is returned (timers: the delay or ` +
  `slightly more). Uncontended: as table 1, ${options.uncontended.rounds} rounds of ${options.uncontended.roundMs} ` +
  `ms per contender, interleaved, after a ${options.uncontended.warmupMs} ms warm-up; median (min–max) over ` +
  `rounds; store calls counted at the server. Contention: as table 2, ${options.workers} processes on one key for ` +
  `${options.contentionMs} ms, hold ${options.holdMs} ms, lease ${options.leaseMs} ms. The raw floor has no ` +
  `waiting, so the contention table compares with a ceiling instead: a handover can not be shorter than the ` +
  `acquire's response, the hold and the release's request, 1000 / (hold + 2 × delay) acquisitions/s. Best peer: ` +
  `the peer with the most cycles (acquisitions) per second in that table. With no delay the tables show what the ` +
  `proxy's hop and this machine cost; a delay's own cost is the difference from them.\n\n` +
  results.map((r) =>
    `### ${
      r.delayMs === 0 ? "No delay (the proxy's hop alone)" : `${r.delayMs} ms each way (${2 * r.delayMs} ms round trip)`
    }\n\n` +
    `Uncontended acquire + release:\n\n${renderUncontended(r.uncontended)}\n\n` +
    `Contention, ${options.workers} processes on one key:\n\n` +
    renderContention(r.contended, r.delayMs, options.holdMs)
  ).join("\n\n")
