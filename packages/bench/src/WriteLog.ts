/**
 * A second door into the bench's server, for the scale table: an HTTP proxy in the server process that notes when
 * each write reached the server, by item key. The library does not expose when it renews, and the client's own
 * clocks would be measured by the process under load; arrival times at the server are evidence from outside.
 *
 * It sits in front of the server itself, not of the counting proxy, so a request still makes one hop.
 */
import * as Http from "node:http"
import type * as Net from "node:net"

export interface Snapshot {
  /** This process's `performance.now()` when the snapshot was taken: the clock of every time below. */
  readonly now: number
  /** CPU time (ms) this process (the server and its proxies) has used so far. */
  readonly cpuMs: number
  /** Arrival times (ms) of the writes to each key, in arrival order. */
  readonly writes: Record<string, Array<number>>
  /** For every answered write: its arrival time and how long the server took to answer it (ms), flat pairs. */
  readonly answered: Array<number>
}

export interface WriteLog {
  readonly url: string
  readonly snapshot: () => Snapshot
  readonly clear: () => void
  readonly close: () => Promise<void>
}

const writeOperations = new Set(["UpdateItem", "PutItem", "DeleteItem"])

/** The first key attribute's value, as a string ("S" or "N"), of a single-item write. */
const keyOf = (body: string): string | undefined => {
  try {
    const parsed = JSON.parse(body) as { Key?: Record<string, Record<string, string>> }
    const first = parsed.Key === undefined ? undefined : Object.values(parsed.Key)[0]
    return first === undefined ? undefined : (first.S ?? first.N)
  } catch {
    return undefined
  }
}

// Connection-level headers describe one hop and must not be forwarded.
const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"])

const endToEnd = (headers: Http.IncomingHttpHeaders): Http.OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !hopByHop.has(name)))

/** CPU time (ms) this process has used so far. */
export const cpuMs = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

export const start = (upstream: string): Promise<WriteLog> => {
  const target = new URL(upstream)
  const agent = new Http.Agent({ keepAlive: true })
  let writes = new Map<string, Array<number>>()
  let answered: Array<number> = []
  const server = Http.createServer({ keepAlive: true }, (req, res) => {
    const arrivedAt = performance.now()
    const amzTarget = req.headers["x-amz-target"]
    const operation = String(Array.isArray(amzTarget) ? amzTarget[0] : amzTarget).split(".").pop() ?? ""
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    if (writeOperations.has(operation)) {
      res.once("finish", () => answered.push(arrivedAt, performance.now() - arrivedAt))
    }
    req.once("end", () => {
      if (!writeOperations.has(operation)) return
      const key = keyOf(Buffer.concat(chunks).toString("utf8"))
      if (key === undefined) return
      const times = writes.get(key)
      if (times === undefined) writes.set(key, [arrivedAt])
      else times.push(arrivedAt)
    })
    const forwarded = Http.request({
      host: target.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: Number(target.port),
      method: req.method,
      path: req.url,
      headers: endToEnd(req.headers),
      agent
    })
    forwarded.once("response", (response) => {
      res.writeHead(response.statusCode ?? 502, response.statusMessage, endToEnd(response.headers))
      response.pipe(res)
    })
    forwarded.once("error", (error) => {
      if (res.headersSent) return res.destroy()
      res.writeHead(502, { "content-type": "text/plain" })
      res.end(`bench write log: upstream failed: ${error.message}`)
    })
    req.pipe(forwarded)
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as Net.AddressInfo
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        snapshot: () => ({ now: performance.now(), cpuMs: cpuMs(), writes: Object.fromEntries(writes), answered }),
        clear: () => {
          writes = new Map()
          answered = []
        },
        close: () =>
          new Promise((done) => {
            agent.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
