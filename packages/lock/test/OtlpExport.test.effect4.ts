// On Effect 4, the lock's spans and metrics reach an OpenTelemetry collector through Effect's own OTLP exporter
// (`effect/observability`), wired as the guide's "What to pick when" shows; the collector here is a local HTTP server
// that keeps what it is sent.
import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Otlp } from "effect/observability"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

interface OtlpSpan {
  readonly name: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

interface Collector {
  readonly url: string
  /** Every request's JSON body, by path (`/v1/traces`, `/v1/metrics`). */
  readonly received: Map<string, Array<any>>
  readonly server: Http.Server
}

/** A collector on a free local port. */
const collector = Effect.acquireRelease(
  Effect.callback<Collector>((resume) => {
    const received = new Map<string, Array<any>>()
    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const bodies = received.get(request.url!) ?? []
        bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
        received.set(request.url!, bodies)
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, received, server }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

const spansOf = (bodies: ReadonlyArray<any>): Array<OtlpSpan> =>
  bodies.flatMap((body) => body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)))

const metricNamesOf = (bodies: ReadonlyArray<any>): Array<string> =>
  bodies.flatMap((body) =>
    body.resourceMetrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name)))
  )

describe("the lock's telemetry over OTLP, with Effect 4's own exporter", () => {
  it.live("exports the lock's spans, children of the caller's, and its metrics when the layer closes", () =>
    Effect.gen(function*() {
      const { received, url } = yield* collector
      const telemetry = Otlp.layerJson({ baseUrl: url, resource: { serviceName: "nightly-report" } }).pipe(
        Layer.provide(FetchHttpClient.layer)
      )
      const job = Effect.void.pipe(Lock.withLock("nightly-report"), Effect.withSpan("nightlyReport"))
      // Closing the layer flushes what it has buffered.
      yield* job.pipe(Effect.provide(LockStore.layerMemory), Effect.provide(telemetry))

      const spans = spansOf(received.get("/v1/traces") ?? [])
      const named = (name: string) => spans.find((span) => span.name === name)
      const report = named("nightlyReport")
      const acquire = named("Lock.acquire")
      const release = named("Lock.release")
      expect(report).toBeDefined()
      expect(acquire?.parentSpanId).toBe(report?.spanId)
      expect(release?.parentSpanId).toBe(report?.spanId)
      expect(acquire?.attributes).toContainEqual({ key: "lock.name", value: { stringValue: "nightly-report" } })

      expect(metricNamesOf(received.get("/v1/metrics") ?? [])).toContain("leasehold_lock_acquisitions_total")
    }).pipe(Effect.scoped))
})
