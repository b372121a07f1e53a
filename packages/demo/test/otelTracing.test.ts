// examples/otelTracing.ts on the memory store and the TestClock: the lock's spans and metrics reach the OpenTelemetry
// SDK's in-memory exporters.
import { describe, expect, it } from "@effect/vitest"
import { LockStore } from "@leasehold/lock"
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  PeriodicExportingMetricReader
} from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Fiber, Layer, Logger, LogLevel, TestClock } from "effect"
import { layerTelemetry, nightlyReport } from "../../../examples/otelTracing.js"

describe("examples/otelTracing.ts", () => {
  it.effect("exports the lock's spans, children of the job's, and its metrics", () => {
    const spans = new InMemorySpanExporter()
    const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
    // Read on demand below: the interval is only the SDK's fallback.
    const metricReader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 60_000 })
    const telemetry = layerTelemetry({ spanProcessor: new SimpleSpanProcessor(spans), metricReader })
    return Effect.gen(function*() {
      const job = yield* Effect.fork(nightlyReport)
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(job)

      // The exporter stops keeping spans when the SDK shuts down: read them while it runs.
      const exported = spans.getFinishedSpans()
      const named = (name: string) => exported.filter((span) => span.name === name)
      const [report] = named("nightlyReport")
      const [acquire] = named("Lock.acquire")
      const [release] = named("Lock.release")
      expect(report).toBeDefined()
      expect(acquire?.attributes).toMatchObject({ "lock.name": "nightly-report", "lock.fence": expect.any(Number) })
      // One trace: the job's span is the parent of the acquire and the release, the acquire of each renew.
      expect(acquire?.parentSpanContext?.spanId).toBe(report?.spanContext().spanId)
      expect(release?.parentSpanContext?.spanId).toBe(report?.spanContext().spanId)
      expect(release?.attributes["lock.fence"]).toBe(acquire?.attributes["lock.fence"])
      // A lease of 3 s renews every second: at 1 s and 2 s into the 2 s job.
      const renews = named("Lock.renew")
      expect(renews.length).toBeGreaterThanOrEqual(1)
      for (const renew of renews) expect(renew.parentSpanContext?.spanId).toBe(acquire?.spanContext().spanId)

      yield* Effect.promise(() => metricReader.forceFlush())
      const exportedMetrics = metrics.getMetrics().flatMap((resource) =>
        resource.scopeMetrics.flatMap((scope) => scope.metrics)
      )
      const metric = (name: string) => exportedMetrics.filter((m) => m.descriptor.name === name).at(-1)
      expect(metric("leasehold_lock_acquisitions_total")?.dataPoints[0]?.value).toBeGreaterThanOrEqual(1)
      expect(metric("leasehold_lock_hold_time_ms")).toBeDefined()
    }).pipe(
      Effect.provide(Layer.merge(LockStore.layerMemory, telemetry)),
      Logger.withMinimumLogLevel(LogLevel.Warning)
    )
  })
})
