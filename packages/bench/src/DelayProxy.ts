/**
 * A delaying HTTP proxy: each request waits `delayMs` before it is forwarded to the server, and its response waits
 * `delayMs` before it is returned, as if client and server were `delayMs` apart each way. It runs in its own process
 * (`delayProxyProcess.ts`, started by `spawn`) so that neither the bench process's CPU nor its event loop carries it.
 * Timers have millisecond granularity: a delay is `delayMs` or slightly more, never less.
 */
import { fork } from "node:child_process"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { type Answer, forward, readBody, reply } from "./Forward.js"

export interface DelayProxy {
  readonly endpoint: string
  readonly close: () => Promise<void>
}

const after = (ms: number, f: () => void) => (ms > 0 ? setTimeout(f, ms) : setImmediate(f))

/** Serves the proxy in this process. */
export const serve = (upstream: string, delayMs: number): Promise<DelayProxy> => {
  const target = new URL(upstream)
  const agent = new Http.Agent({ keepAlive: true })
  const server = Http.createServer({ keepAlive: true }, (req, res) => {
    // The request waits the delay before it goes on, and its answer waits it again before it comes back.
    const answered = (answer: Answer) => after(delayMs, () => reply(res, answer))
    readBody(req, (body) => after(delayMs, () => forward(target, agent, req, res, body, answered)))
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            agent.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      }))
  })
}

/** Starts the proxy in a child process; resolves once it listens. */
export const spawn = (upstream: string, delayMs: number): Promise<DelayProxy> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./delayProxyProcess.ts", import.meta.url)), [upstream, String(delayMs)], {
      execArgv: ["--conditions=@leasehold/source", "--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("exit", (code) => reject(new Error(`delay proxy exited with code ${code}`)))
    child.once("message", (message: { readonly endpoint: string }) => {
      const exited = new Promise<void>((done) => child.once("exit", () => done()))
      resolve({
        endpoint: message.endpoint,
        close: () => {
          child.disconnect()
          return exited
        }
      })
    })
  })
