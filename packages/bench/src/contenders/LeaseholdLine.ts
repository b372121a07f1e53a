/**
 * Leasehold's row for one line (Effect 3 or Effect 4) under Node 22: the Leasehold row's cycle, `Lock.withLock(name,
 * Effect.void)` on the DynamoDB store in one fiber, run in that line's worker process; its CPU is the worker's.
 */
import type { Contender } from "../Contender.js"
import * as LineProcess from "../LineProcess.js"
import type * as Lines from "../Lines.js"
import type { Round } from "../Protocol.js"
import type { ClientConfig } from "../Protocol.js"

export const make = (line: Lines.Line) => (config: ClientConfig): Contender => {
  const worker = LineProcess.start(line)
  let last: Round | undefined
  return {
    name: line.name,
    round: async (key, durationMs) => {
      last = await worker.request({ config, round: { key, durationMs } })
      return [...last.latencies]
    },
    lastRound: () => last === undefined ? undefined : { cpuMs: last.cpuMs, seconds: last.seconds },
    close: worker.close
  }
}
