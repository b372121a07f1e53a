/**
 * The live view: on a terminal, a frame redrawn in place (who holds the lock, its fence and lease, each worker, a
 * progress bar, the latest incidents); elsewhere (CI logs, pipes), plain lines as things happen and a progress line
 * every few seconds.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as State from "./State.js"

const bar = (fraction: number, width: number) => {
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * width)
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]`
}

const clock = (state: State.State, at: number) => `t+${((at - state.startedAt) / 1000).toFixed(1).padStart(5)}s`

/**
 * The lock as the store has it, one line.
 *
 * @since 1.0.0
 * @category rendering
 */
export const lockLine = (record: LockRecord | undefined, now: number): string => {
  if (record === undefined) return "lock: never taken"
  if (record.owner === undefined) return `lock: free (last fence ${record.fence})`
  const remaining = record.leaseUntil - now
  return `lock: held by ${record.holder ?? "?"}, fence ${record.fence}, lease ` +
    (remaining >= 0 ? `${(remaining / 1000).toFixed(1)} s left` : `EXPIRED ${(-remaining / 1000).toFixed(1)} s ago`)
}

/**
 * One frame for a terminal.
 *
 * @since 1.0.0
 * @category rendering
 */
export const frame = (state: State.State, record: LockRecord | undefined, now: number): ReadonlyArray<string> => {
  const elapsed = now - state.startedAt
  const committed = state.workers.reduce((sum, worker) => sum + worker.committed, 0)
  return [
    `Leasehold demo, Effect ${state.line} line  ${bar(elapsed / state.durationMs, 30)} ${(elapsed / 1000).toFixed(0)}/${
      (state.durationMs / 1000).toFixed(0)
    } s  ${state.phase}`,
    `server: ${state.serverUp ? "up" : "UNREACHABLE"}   ${lockLine(record, now)}`,
    `sections completed: ${committed}`,
    "",
    "  worker  pid      state               fence          sections  rejected",
    ...state.workers.map((worker) =>
      `  ${String(worker.id).padEnd(6)}  ${String(worker.pid ?? "-").padEnd(7)}  ${worker.state.padEnd(18)}  ${
        String(worker.fence ?? "-").padEnd(13)
      }  ${String(worker.committed).padStart(8)}  ${String(worker.rejected).padStart(8)}`
    ),
    "",
    ...state.log.slice(-10).map((entry) => `  ${clock(state, entry.at)}  ${entry.text}`)
  ]
}

/**
 * A progress line for plain output.
 *
 * @since 1.0.0
 * @category rendering
 */
export const progressLine = (state: State.State, record: LockRecord | undefined, now: number): string => {
  const committed = state.workers.reduce((sum, worker) => sum + worker.committed, 0)
  return `${clock(state, now)}  ${bar((now - state.startedAt) / state.durationMs, 20)} ${committed} sections; ` +
    `${lockLine(record, now)}; workers: ${state.workers.map((w) => `${w.id}=${w.state}`).join(", ")}`
}

/**
 * Redraws `lines` in place of the previous frame (which had `previous` lines).
 *
 * @since 1.0.0
 * @category rendering
 */
export const redraw = (lines: ReadonlyArray<string>, previous: number, columns: number): string =>
  (previous > 0 ? `\x1b[${previous}A` : "") +
  lines.map((line) => `\x1b[2K${line.length > columns ? line.slice(0, columns - 1) : line}`).join("\n") +
  "\n\x1b[J"

/**
 * Plain lines for log entries added since `seen`.
 *
 * @since 1.0.0
 * @category rendering
 */
export const newLogLines = (state: State.State, seen: number): ReadonlyArray<string> =>
  state.log.slice(seen).map((entry) => `${clock(state, entry.at)}  ${entry.text}`)
