/**
 * A DynamoDB server in a child process, the request counts and request units of its meter, and its write log.
 */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { ClientConfig } from "./Protocol.js"
import type * as RequestUnits from "./RequestUnits.js"
import type * as WriteLog from "./WriteLog.js"

export type Engine = "dynalite" | "dynamodb-local"

export interface ServerProcess {
  readonly engine: Engine
  readonly clientConfig: ClientConfig
  /** Requests the server received since the last reset, by DynamoDB operation. */
  readonly requests: () => Promise<Record<string, number>>
  readonly reset: () => Promise<void>
  /** Request units of the requests answered since the last reset (NaN where an operation is not priced). */
  readonly units: () => Promise<RequestUnits.Units>
  /** Puts a fresh `WriteLog` in front of the server (one hop, like the counting proxy); resolves to its endpoint. */
  readonly writeLog: () => Promise<string>
  /** What the write log has seen since `writeLog`. */
  readonly writes: () => Promise<WriteLog.Snapshot>
  readonly stop: () => Promise<void>
}

interface Reply {
  readonly id: number
  readonly counts?: Record<string, number>
  readonly units?: RequestUnits.Units
  readonly clientConfig?: ClientConfig
  readonly url?: string
  readonly snapshot?: WriteLog.Snapshot
}

export const start = (engine: Engine): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = fork(fileURLToPath(new URL("./server.ts", import.meta.url)), [engine], {
      execArgv: ["--conditions=@leasehold/source", "--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    let nextId = 1
    const waiting = new Map<number, (reply: Reply) => void>()
    const call = (op: string) =>
      new Promise<Reply>((done) => {
        const id = nextId++
        waiting.set(id, done)
        child.send({ id, op })
      })
    child.once("exit", (code) => reject(new Error(`${engine} server process exited with code ${code}`)))
    child.on("message", (message: Reply) => {
      if (message.id === 0 && message.clientConfig !== undefined) {
        const exited = new Promise<void>((done) => child.once("exit", () => done()))
        resolve({
          engine,
          clientConfig: message.clientConfig,
          requests: () => call("requests").then((reply) => reply.counts ?? {}),
          reset: () => call("reset").then(() => undefined),
          // IPC carries NaN as null.
          units: () =>
            call("units").then((reply) => ({
              read: reply.units?.read ?? Number.NaN,
              write: reply.units?.write ?? Number.NaN
            })),
          writeLog: () => call("writeLog").then((reply) => reply.url!),
          writes: () => call("writes").then((reply) => reply.snapshot!),
          stop: () => {
            child.send({ id: -1, op: "stop" })
            return exited
          }
        })
        return
      }
      const done = waiting.get(message.id)
      waiting.delete(message.id)
      done?.(message)
    })
  })
