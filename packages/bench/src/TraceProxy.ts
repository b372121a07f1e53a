/**
 * Recording proxies for the contention trace: one per worker process (so the port says which worker sent a request),
 * in front of the server's counting proxy. Each request is recorded with its operation, what it does for a lock
 * (Leasehold's `UpdateItem`s are told apart by their update expression), its status, and when it arrived and was
 * answered here, on this process's clock (epoch ms, sub-millisecond).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { now } from "./ContentionDriver.js"

export type Kind = "acquire" | "release" | "renew" | "read" | "other"

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
  // Leasehold's three writes: acquire sets the fence, release removes the owner, renew does neither.
  if (body.includes("if_not_exists(#fence")) return "acquire"
  if (body.includes("REMOVE #owner")) return "release"
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
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            const body = Buffer.concat(chunks)
            const target_ = String(req.headers["x-amz-target"] ?? "")
            const operation = target_.slice(target_.lastIndexOf(".") + 1)
            const forwarded = Http.request({
              host: target.hostname,
              port: Number(target.port),
              method: req.method,
              path: req.url,
              headers: req.headers,
              agent
            }, (response) => {
              const answer: Array<Buffer> = []
              response.on("data", (chunk: Buffer) => answer.push(chunk))
              response.on("end", () => {
                res.writeHead(response.statusCode ?? 502, response.headers)
                res.end(Buffer.concat(answer))
                requests.push({
                  worker,
                  operation,
                  kind: kindOf(operation, body.toString("utf8")),
                  arrivedAt,
                  answeredAt: now(),
                  status: response.statusCode ?? 502
                })
              })
            })
            forwarded.on("error", () => res.destroy())
            forwarded.end(body)
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
