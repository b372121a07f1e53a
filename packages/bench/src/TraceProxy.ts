/**
 * Recording proxies for the contention trace: one per worker process (so the port says which worker sent a request),
 * in front of the server's counting proxy. Each request is recorded with its operation, what it does for a lock
 * (Leasehold's `UpdateItem`s are told apart by their update expression), its status, and when it arrived and was
 * answered here, on this process's clock (epoch ms, sub-millisecond).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { now } from "./ContentionDriver.js"
import { forward, readBody, reply } from "./Forward.js"

export type Kind = "acquire" | "reserve" | "release" | "renew" | "read" | "other"

export interface Request {
  readonly worker: number
  readonly operation: string
  readonly kind: Kind
  readonly arrivedAt: number
  readonly answeredAt: number
  readonly status: number
}

export interface TraceProxies {
  /** The endpoint worker `i` connects to. */
  readonly endpoints: ReadonlyArray<string>
  readonly requests: () => ReadonlyArray<Request>
  readonly close: () => Promise<void>
}

const kindOf = (operation: string, body: string): Kind => {
  if (operation === "GetItem") return "read"
  if (operation !== "UpdateItem") return "other"
  // Leasehold's four writes: acquire sets the fence, a reservation sets only its own fields, release removes the
  // owner, renew does none of these.
  // (`#f` is the fence's placeholder, `#b` the reserver's, `#o` the owner's: packages/core LockExpressions.)
  if (body.includes("if_not_exists(#f,")) return "acquire"
  if (body.includes("SET #b = ")) return "reserve"
  if (body.includes("REMOVE #o,")) return "release"
  return "renew"
}

export const start = async (upstream: string, workers: number): Promise<TraceProxies> => {
  const target = new URL(upstream)
  const agent = new Http.Agent({ keepAlive: true })
  const requests: Array<Request> = []
  const servers = await Promise.all(
    Array.from({ length: workers }, (_, worker) =>
      new Promise<Http.Server>((resolve) => {
        const server = Http.createServer({ keepAlive: true }, (req, res) => {
          const arrivedAt = now()
          readBody(req, (body) => {
            const target_ = String(req.headers["x-amz-target"] ?? "")
            const operation = target_.slice(target_.lastIndexOf(".") + 1)
            forward(target, agent, req, res, body, (answer) => {
              reply(res, answer)
              requests.push({
                worker,
                operation,
                kind: kindOf(operation, body.toString("utf8")),
                arrivedAt,
                answeredAt: now(),
                status: answer.status
              })
            })
          })
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      }))
  )
  return {
    endpoints: servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    requests: () => [...requests].sort((a, b) => a.arrivedAt - b.arrivedAt),
    close: async () => {
      agent.destroy()
      await Promise.all(servers.map((server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      ))
    }
  }
}
