/**
 * A line's `lineWorker` process, as the bench process talks to it: one request at a time, each answered by one
 * message; a worker that exits fails what is waiting.
 */
import type { ChildProcess } from "node:child_process"
import * as Lines from "./Lines.js"
import type { LineRequest, Memory, Round, RoundRequest } from "./Protocol.js"

export interface LineProcess {
  readonly request: {
    (message: RoundRequest): Promise<Round>
    (message: LineRequest): Promise<Memory>
  }
  readonly close: () => Promise<void>
}

export const start = (line: Lines.Line): LineProcess => {
  // The worker's errors go to stderr with the bench's progress, not into the document.
  const child: ChildProcess = Lines.start(line, "lineWorker.ts", [], ["ignore", 2, 2, "ipc"])
  let failure: Error | undefined
  const pending = new Set<(error: Error) => void>()
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      failure = new Error(`${line.name} worker exited with code ${code}`)
      for (const reject of pending) reject(failure)
      resolve()
    })
  )
  const next = <A>(): Promise<A> =>
    new Promise<A>((resolve, reject) => {
      if (failure !== undefined) return reject(failure)
      pending.add(reject)
      child.once("message", (message: A) => {
        pending.delete(reject)
        resolve(message)
      })
    })
  const ready = next<unknown>()
  let queue: Promise<unknown> = ready
  const request = (message: LineRequest) => {
    const answer = queue.then(() => {
      const reply = next<unknown>()
      child.send(message)
      return reply
    })
    queue = answer.catch(() => undefined)
    return answer
  }
  return {
    request: request as LineProcess["request"],
    close: async () => {
      if (failure === undefined) child.kill()
      await exited
    }
  }
}
