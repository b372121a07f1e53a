/**
 * The shape of contention on one key: how throughput, waits (the worst one too: no setting may let a waiter starve),
 * fairness and the cost per acquisition move with the number of processes, the time each holds the lock and the
 * network's delay. Table 2 is one point of it; this section is the grid around that point, for Leasehold and for one
 * peer, each setting's contenders run one after the other so that drift hits them alike.
 */
import * as Contention from "./Contention.js"
import * as DelayProxy from "./DelayProxy.js"
import type * as Drivers from "./Drivers.js"
import type * as Lines from "./Lines.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, table } from "./Stats.js"

export interface Options {
  readonly processes: ReadonlyArray<number>
  readonly holdsMs: ReadonlyArray<number>
  /** Delay each way, ms; 0 is the server as table 2 reaches it, with no delaying proxy. */
  readonly delaysMs: ReadonlyArray<number>
  /** How long each cell's processes contend. */
  readonly cellMs: number
  readonly leaseMs: number
}

/** A row's contender: a driver, on one of Leasehold's lines or under the bench's Node. */
export interface Contender {
  readonly id: Drivers.Id
  readonly line?: Lines.Line | undefined
}

export interface Cell {
  readonly processes: number
  readonly holdMs: number
  readonly delayMs: number
  readonly result: Contention.Result
}

export const run = async (
  server: ServerProcess,
  contenders: ReadonlyArray<Contender>,
  options: Options,
  log: (line: string) => void
): Promise<Array<Cell>> => {
  const cells: Array<Cell> = []
  for (const delayMs of options.delaysMs) {
    const proxy = delayMs === 0 ? undefined : await DelayProxy.spawn(server.clientConfig.endpoint, delayMs)
    try {
      // The server as the clients see it; counts, units and resets still at the server's meter.
      const reached: ServerProcess = proxy === undefined
        ? server
        : { ...server, clientConfig: { ...server.clientConfig, endpoint: proxy.endpoint } }
      for (const processes of options.processes) {
        for (const holdMs of options.holdsMs) {
          for (const contender of contenders) {
            log(
              `shape: ${contender.line?.name ?? contender.id}, ${processes} processes, hold ${holdMs} ms, ` +
                `${delayMs} ms each way`
            )
            const result = await Contention.processes(
              reached,
              contender.id,
              processes,
              { holdMs, leaseMs: options.leaseMs, durationMs: options.cellMs },
              contender.line
            )
            cells.push({ processes, holdMs, delayMs, result })
          }
        }
      }
    } finally {
      await proxy?.close()
    }
  }
  return cells
}

/** A run's result, labelled with its hold as its row is. */
const labelled = ({ holdMs, result }: Cell): Contention.Result => ({
  ...result,
  label: `${result.label}, hold ${holdMs} ms`
})

const delayName = (delayMs: number) => (delayMs === 0 ? "no delay" : `${delayMs} ms each way`)

const render = (cells: ReadonlyArray<Cell>): string =>
  table(
    [
      "setup",
      "acquisitions/s",
      "wait p50 ms",
      "wait p99 ms",
      "wait max ms",
      "share max/min",
      "store calls/acquisition",
      "write units",
      "read units"
    ],
    cells.map(labelled).map((result) => {
      const s = Contention.summarize(result)
      return [
        result.label,
        fixed(s.perSecond, 1),
        fixed(s.waitP50, 1),
        fixed(s.waitP99, 1),
        fixed(s.waitMax, 1),
        fixed(s.share, 2),
        fixed(s.callsPerAcquisition, 2),
        fixed(s.writeUnitsPerAcquisition, 2),
        fixed(s.readUnitsPerAcquisition, 2)
      ]
    })
  )

/** The section: one table per delay, its rows by processes, then hold, then contender. */
export const section = (cells: ReadonlyArray<Cell>, options: Options, method: string, linesNote: string): string => {
  const cellCount = options.delaysMs.length * options.processes.length * options.holdsMs.length
  const rowsPerCell = cells.length / Math.max(1, cellCount)
  return `## 8. Contention shape: processes, hold and delay (embedded dynalite)\n\n` +
    `As table 2, on one key, for every combination of ${options.processes.join(", ")} processes, a hold of ` +
    `${options.holdsMs.join(", ")} ms and ${options.delaysMs.map(delayName).join(" or ")} (a delaying proxy in ` +
    `its own process holds each request and each response that long; with no delay the clients reach the server as ` +
    `in table 2); lease ${options.leaseMs} ms. Each setting's ${rowsPerCell} contenders run one after the other, ` +
    `${options.cellMs} ms each; ${cells.length} runs in all. Wait max is the longest any acquisition waited: no ` +
    `setting may let a waiter starve. Share = most acquisitions of one process / fewest. ${method}\n\n` +
    options.delaysMs.map((delayMs) => {
      const delayed = cells.filter((cell) => cell.delayMs === delayMs)
      return `${delayName(delayMs).replace(/^./, (c) => c.toUpperCase())}:\n\n` + render(delayed) +
        Contention.lostNote(delayed.map(labelled))
    }).join("\n\n") + `\n\n${linesNote}`
}
