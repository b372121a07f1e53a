/**
 * The uncontended table: acquire + release cycles on one key per round, contenders interleaved round by round
 * (A B C A B C ...) so that machine drift hits all alike.
 */
import type { Contender } from "./Contender.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, median, percentile, sorted, spread, table } from "./Stats.js"

export interface RoundResult {
  readonly cycles: number
  readonly seconds: number
  readonly p50: number
  readonly p99: number
  readonly cpuMsPerCycle: number
  readonly writesPerCycle: number
  readonly readsPerCycle: number
  /** Request units per cycle, as DynamoDB would charge them (`RequestUnits.ts`). */
  readonly writeUnitsPerCycle: number
  readonly readUnitsPerCycle: number
}

export const writeOperations: ReadonlySet<string> = new Set([
  "UpdateItem",
  "PutItem",
  "DeleteItem",
  "BatchWriteItem",
  "TransactWriteItems"
])
export const readOperations: ReadonlySet<string> = new Set([
  "GetItem",
  "Query",
  "Scan",
  "BatchGetItem",
  "TransactGetItems"
])

/** The requests of `counts` (by DynamoDB operation) whose operation is in `set`. */
export const count = (counts: Record<string, number>, set: ReadonlySet<string>): number =>
  Object.entries(counts).reduce((sum, [operation, n]) => (set.has(operation) ? sum + n : sum), 0)

export interface Options {
  readonly rounds: number
  readonly roundMs: number
  readonly warmupMs: number
}

export const run = async (
  server: ServerProcess,
  contenders: ReadonlyArray<Contender>,
  options: Options,
  log: (line: string) => void
): Promise<Map<string, Array<RoundResult>>> => {
  const results = new Map<string, Array<RoundResult>>(contenders.map((c) => [c.name, []]))
  for (const contender of contenders) await contender.round(`warmup-${contender.name}`, options.warmupMs)
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, contender] of contenders.entries()) {
      await server.reset()
      const cpuBefore = process.cpuUsage()
      const started = performance.now()
      const latencies = await contender.round(`c${index}-r${round}`, options.roundMs)
      const cpu = process.cpuUsage(cpuBefore)
      const measured = contender.lastRound?.()
      const seconds = measured?.seconds ?? (performance.now() - started) / 1000
      const cpuMs = measured?.cpuMs ?? (cpu.user + cpu.system) / 1000
      const counts = await server.requests()
      const units = await server.units()
      const s = sorted(latencies)
      const n = latencies.length
      const result: RoundResult = {
        cycles: n,
        seconds,
        p50: percentile(s, 50),
        p99: percentile(s, 99),
        cpuMsPerCycle: cpuMs / n,
        writesPerCycle: count(counts, writeOperations) / n,
        readsPerCycle: count(counts, readOperations) / n,
        writeUnitsPerCycle: units.write / n,
        readUnitsPerCycle: units.read / n
      }
      results.get(contender.name)!.push(result)
      log(`  round ${round + 1}/${options.rounds} ${contender.name}: ${fixed(n / seconds, 0)} cycles/s`)
    }
  }
  return results
}

export const render = (results: Map<string, Array<RoundResult>>): string =>
  table(
    [
      "contender",
      "cycles/s",
      "p50 ms",
      "p99 ms",
      "client CPU ms/cycle",
      "writes/cycle",
      "reads/cycle",
      "write units/cycle",
      "read units/cycle"
    ],
    [...results].map(([name, rounds]) => [
      name,
      spread(rounds.map((r) => r.cycles / r.seconds), 0),
      spread(rounds.map((r) => r.p50), 2),
      spread(rounds.map((r) => r.p99), 2),
      spread(rounds.map((r) => r.cpuMsPerCycle), 3),
      fixed(median(rounds.map((r) => r.writesPerCycle)), 2),
      fixed(median(rounds.map((r) => r.readsPerCycle)), 2),
      fixed(median(rounds.map((r) => r.writeUnitsPerCycle)), 2),
      fixed(median(rounds.map((r) => r.readUnitsPerCycle)), 2)
    ])
  )

export const medianRate = (rounds: ReadonlyArray<RoundResult>): number =>
  median(rounds.map((r) => r.cycles / r.seconds))
