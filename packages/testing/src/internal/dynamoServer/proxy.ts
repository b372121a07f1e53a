/**
 * A counting, pausable HTTP proxy on 127.0.0.1: what tests and benchmarks put between a DynamoDB client and the
 * server to count store calls on the server side and to make the server go away.
 *
 * Requests are forwarded as they came (method, path, headers including the SigV4-signed `Host`, streamed bodies), so
 * signatures computed by the client for the proxy's address stay valid upstream.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as EffectLine from "../effectLine.js"
import * as StartError from "./startError.js"

/** @internal */
export type PauseMode = "hold" | "refuse" | "late"

/** @internal */
export interface Proxy {
  readonly url: string
  readonly requests: Effect.Effect<ReadonlyMap<string, number>>
  readonly resetRequests: Effect.Effect<void>
  readonly pending: Effect.Effect<number>
  readonly awaitPending: (count: number) => Effect.Effect<void>
  readonly pause: (mode: PauseMode) => Effect.Effect<void>
  readonly resume: Effect.Effect<void>
  readonly deliverLate: Effect.Effect<void>
}

// Connection-level headers describe one hop; forwarding them would tie the client's connection handling to ours.
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "upgrade"
])

const endToEnd = (headers: Http.IncomingHttpHeaders): Http.OutgoingHttpHeaders => {
  const out: Http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) out[name] = value
  }
  return out
}

/**
 * "DynamoDB_20120810.UpdateItem" -> "UpdateItem". Requests without a target (health checks, browsers) are not
 * DynamoDB operations and are not counted.
 *
 * @internal
 */
export const operationOf = (target: string | Array<string> | undefined): string | undefined => {
  const value = Array.isArray(target) ? target[0] : target
  if (value === undefined || value.length === 0) return undefined
  const dot = value.lastIndexOf(".")
  return dot === -1 ? value : value.slice(dot + 1)
}

interface Waiter {
  readonly run: () => void
  readonly socket: Net.Socket
  /** A `"late"` pause's request: delivered by `deliverLate`, whether or not its client is there; done when answered. */
  readonly late: (() => Promise<void>) | undefined
}

/** What a pause does right now, the requests and responses it holds, and who waits for a count of them. */
interface Hold {
  mode: PauseMode | undefined
  waiters: Array<Waiter>
  readonly pendingListeners: Set<() => boolean>
}

const notify = (hold: Hold) => {
  for (const listener of hold.pendingListeners) {
    if (listener()) hold.pendingListeners.delete(listener)
  }
}

const drop = (hold: Hold, waiter: Waiter) => {
  const before = hold.waiters.length
  hold.waiters = hold.waiters.filter((w) => w !== waiter)
  if (hold.waiters.length !== before) notify(hold)
}

// Both directions pass this gate, so a pause also holds responses to requests already forwarded, as a stopped
// server would not answer them either.
const gate = (hold: Hold, socket: Net.Socket, run: () => void) => {
  if (hold.mode === undefined) return run()
  if (hold.mode === "refuse") return socket.resetAndDestroy()
  // A client that gives up while held (timeout, interruption) takes its request back: a held request never
  // reaches the server, a held response is dropped.
  const onClose = () => drop(hold, waiter)
  const waiter: Waiter = {
    socket,
    late: undefined,
    run: () => {
      socket.off("close", onClose)
      run()
    }
  }
  socket.once("close", onClose)
  hold.waiters.push(waiter)
  notify(hold)
}

/**
 * A `"late"` pause: the request, read whole, waits for `deliverLate` (a `resume` leaves it waiting) and then reaches
 * the server whether or not its client is still there, as bytes already on the wire do; the answer goes back only to a
 * client still waiting for it.
 */
const holdLate = (
  hold: Hold,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  send: (body: Buffer) => Http.ClientRequest
) => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  const deliver = () =>
    new Promise<void>((done) => {
      const forwarded = send(Buffer.concat(chunks))
      forwarded.once("response", (upstreamResponse) => {
        upstreamResponse.once("end", () => done())
        if (res.destroyed || res.headersSent) return upstreamResponse.resume()
        res.writeHead(
          upstreamResponse.statusCode ?? 502,
          upstreamResponse.statusMessage,
          endToEnd(upstreamResponse.headers)
        )
        upstreamResponse.pipe(res)
      })
      forwarded.once("error", () => {
        res.destroy()
        done()
      })
    })
  req.once("end", () => {
    hold.waiters.push({ socket: req.socket, late: deliver, run: () => void deliver() })
    notify(hold)
  })
}

/** Counts the request's operation, then forwards it upstream and its response back, each through the gate. */
const forward = (upstream: URL, agent: Http.Agent, counts: Map<string, number>, hold: Hold) => {
  const upstreamPort = upstream.port === "" ? 80 : Number(upstream.port)
  // URL keeps the brackets of an IPv6 literal ("[::1]"); sockets want the bare address.
  const upstreamHost = upstream.hostname.replace(/^\[(.*)\]$/, "$1")
  const upstreamRequestOf = (req: Http.IncomingMessage) =>
    Http.request({
      host: upstreamHost,
      port: upstreamPort,
      method: req.method,
      path: req.url,
      headers: endToEnd(req.headers),
      agent
    })
  return (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    if (hold.mode === "refuse") return req.socket.resetAndDestroy()
    const operation = operationOf(req.headers["x-amz-target"])
    if (operation !== undefined) counts.set(operation, (counts.get(operation) ?? 0) + 1)
    if (hold.mode === "late") {
      return holdLate(hold, req, res, (body) => {
        const forwarded = upstreamRequestOf(req)
        forwarded.end(body)
        return forwarded
      })
    }
    let upstreamRequest: Http.ClientRequest | undefined
    res.once("close", () => {
      if (!res.writableFinished) upstreamRequest?.destroy()
    })
    gate(hold, req.socket, () => {
      const forwarded = upstreamRequestOf(req)
      upstreamRequest = forwarded
      forwarded.once("response", (upstreamResponse) =>
        gate(hold, req.socket, () => {
          res.writeHead(
            upstreamResponse.statusCode ?? 502,
            upstreamResponse.statusMessage,
            endToEnd(upstreamResponse.headers)
          )
          upstreamResponse.once("error", () => res.destroy())
          upstreamResponse.pipe(res)
        }))
      forwarded.once("error", (error) => {
        if (res.headersSent) return res.destroy()
        res.writeHead(502, { "content-type": "text/plain" })
        res.end(`leasehold test proxy: upstream ${upstream.origin} failed: ${error.message}`)
      })
      req.pipe(forwarded)
    })
  }
}

/**
 * Starts the proxy in front of an `http:` upstream; it stops (dropping every connection) when the scope closes.
 *
 * @internal
 */
export const make = (upstream: URL): Effect.Effect<Proxy, StartError.StartError, Scope.Scope> =>
  Effect.gen(function*() {
    const counts = new Map<string, number>()
    const sockets = new Set<Net.Socket>()
    const hold: Hold = { mode: undefined, waiters: [], pendingListeners: new Set() }
    const agent = new Http.Agent({ keepAlive: true })

    const server = Http.createServer({ keepAlive: true }, forward(upstream, agent, counts, hold))
    server.on("connection", (socket: Net.Socket) => {
      if (hold.mode === "refuse") return socket.resetAndDestroy()
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
    })

    yield* Effect.acquireRelease(
      EffectLine.callback<void, StartError.StartError>((resume) => {
        server.once(
          "error",
          (cause) =>
            resume(
              Effect.fail(new StartError.StartError({ reason: "StartFailed", detail: "proxy did not start", cause }))
            )
        )
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        EffectLine.callback<void>((resume) => {
          hold.mode = undefined
          hold.waiters = []
          notify(hold)
          agent.destroy()
          for (const socket of sockets) socket.destroy()
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )

    const address = server.address() as Net.AddressInfo

    return {
      url: `http://127.0.0.1:${address.port}`,
      requests: Effect.sync(() => new Map(counts)),
      resetRequests: Effect.sync(() => counts.clear()),
      pending: Effect.sync(() => hold.waiters.length),
      awaitPending: (count) =>
        EffectLine.callback<void>((resume) => {
          const check = () => {
            if (hold.waiters.length < count) return false
            resume(Effect.void)
            return true
          }
          if (check()) return
          hold.pendingListeners.add(check)
          return Effect.sync(() => hold.pendingListeners.delete(check))
        }),
      pause: (next) =>
        Effect.sync(() => {
          hold.mode = next
          if (next === "refuse") {
            // A server that went away resets every open connection, including those with held requests.
            hold.waiters = []
            notify(hold)
            for (const socket of sockets) socket.resetAndDestroy()
          }
        }),
      deliverLate: Effect.promise(() => {
        const late = hold.waiters.filter((waiter) => waiter.late !== undefined)
        hold.waiters = hold.waiters.filter((waiter) => waiter.late === undefined)
        notify(hold)
        // In arrival order, each once the one before it was answered.
        return late.reduce((previous, waiter) => previous.then(waiter.late), Promise.resolve())
      }),
      resume: Effect.sync(() => {
        hold.mode = undefined
        const held = hold.waiters
        hold.waiters = []
        notify(hold)
        for (const waiter of held) {
          if (waiter.late !== undefined) hold.waiters.push(waiter)
          else if (!waiter.socket.destroyed) waiter.run()
        }
      })
    }
  })
