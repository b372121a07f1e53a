/**
 * Leasehold's spans and metrics in OpenTelemetry, through `@effect/opentelemetry` and the OpenTelemetry SDK (the
 * Effect 3 line). Every lock operation is a span (`Lock.acquire`, `Lock.renew`, `Lock.release`, with `lock.name`,
 * `lock.owner` and `lock.fence`), a child of the span that asked for the lock; the lock's metrics (`leasehold_lock_*`:
 * acquisitions, conflicts, losses, wait and hold times) are Effect metrics, which the SDK's metric reader collects.
 *
 *   node --import tsx examples/otelTracing.ts     prints the spans, then the metrics, on the console
 *
 * It runs on the memory store; with LEASEHOLD_TABLE set (and AWS_REGION, DYNAMODB_ENDPOINT as for the other examples)
 * it takes the lock in DynamoDB. In production, the console exporters give way to OTLP ones (for instance
 * `@opentelemetry/exporter-trace-otlp-http` in a `BatchSpanProcessor`), and nothing else changes.
 */
import { NodeSdk } from "@effect/opentelemetry"
import { NodeRuntime } from "@effect/platform-node"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock, LockStore } from "@leasehold/lock"
import { ConsoleMetricExporter, type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { ConsoleSpanExporter, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer } from "effect"
import { pathToFileURL } from "node:url"

/** Where the spans and the metrics go: a span processor with its exporter, and a metric reader with its own. */
export interface Exporters {
  readonly spanProcessor: SpanProcessor
  readonly metricReader: MetricReader
}

/**
 * Effect's tracer and metrics, bridged to the OpenTelemetry SDK. Closing the layer shuts the SDK down, which exports
 * what is still buffered.
 */
export const layerTelemetry = (exporters: Exporters) =>
  NodeSdk.layer(() => ({ resource: { serviceName: "nightly-report" }, ...exporters }))

/**
 * A job under the lock, long enough for a renew or two (the heartbeat renews every lease / 3). Its own span is the
 * parent of the lock's.
 */
export const nightlyReport = Effect.gen(function*() {
  yield* Effect.logInfo("building the nightly report")
  yield* Effect.sleep("2 seconds")
}).pipe(Lock.withLock("nightly-report", { lease: "3 seconds" }), Effect.withSpan("nightlyReport"))

const store = process.env.LEASEHOLD_TABLE === undefined ? LockStore.layerMemory : DynamoLockStore.layerConfig()

/** Both on the console; the metrics read once at the end, as the SDK shuts down (a service reads them every minute). */
const consoleExporters = (): Exporters => ({
  spanProcessor: new SimpleSpanProcessor(new ConsoleSpanExporter()),
  metricReader: new PeriodicExportingMetricReader({
    exporter: new ConsoleMetricExporter(),
    exportIntervalMillis: 60_000
  })
})

// Only when run as a script: the test imports `nightlyReport` and `layerTelemetry`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  NodeRuntime.runMain(nightlyReport.pipe(Effect.provide(Layer.merge(store, layerTelemetry(consoleExporters())))))
}
