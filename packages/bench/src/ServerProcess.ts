/**
 * A DynamoDB server in a child process, and the server-side request counts of its proxy.
 */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"

export type Engine = "dynalite" | "dynamodb-local"

export interface ClientConfig {
  readonly endpoint: string
  readonly region: string
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string }
}

export interface ServerProcess {
  readonly engine: Engine
  readonly clientConfig: ClientConfig
  /** Requests the server received since the last reset, by DynamoDB operation. */
  readonly requests: () => Promise<Record<string, number>>
  readonly reset: () => Promise<void>
  readonly stop: () => Promise<void>
}

export const start = (engine: Engine): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = fork(fileURLToPath(new URL("./server.ts", import.meta.url)), [engine], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    let nextId = 1
    const waiting = new Map<number, (counts: Record<string, number>) => void>()
    const call = (op: string) =>
      new Promise<Record<string, number>>((done) => {
        const id = nextId++
        waiting.set(id, done)
        child.send({ id, op })
      })
    child.once("exit", (code) => reject(new Error(`${engine} server process exited with code ${code}`)))
    child.on("message", (message: { id: number; counts?: Record<string, number>; clientConfig?: ClientConfig }) => {
      if (message.id === 0 && message.clientConfig !== undefined) {
        const exited = new Promise<void>((done) => child.once("exit", () => done()))
        resolve({
          engine,
          clientConfig: message.clientConfig,
          requests: () => call("requests"),
          reset: () => call("reset").then(() => undefined),
          stop: () => {
            child.send({ id: -1, op: "stop" })
            return exited
          }
        })
        return
      }
      const done = waiting.get(message.id)
      waiting.delete(message.id)
      done?.(message.counts ?? {})
    })
  })
