/**
 * `npm run demo`: worker processes coordinating through Leasehold on an embedded DynamoDB-compatible server, with
 * scripted incidents, a live view and a verdict computed from the ledger and the workers' reports. Exits 0 only if
 * every check of the verdict holds. `--effect 4` runs the workers on the Effect 4 line; the rest is the same.
 *
 * @since 1.0.0
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as DynamoLockTable from "@leasehold/dynamodb/DynamoLockTable"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Incidents from "./Incidents.js"
import * as Ledger from "./Ledger.js"
import * as LiveView from "./LiveView.js"
import * as Options from "./Options.js"
import * as Pool from "./Pool.js"
import * as State from "./State.js"
import * as Verdict from "./Verdict.js"

const write = (text: string) => Effect.sync(() => process.stdout.write(text))
const say = (line: string) => write(`${line}\n`)

/** When each incident starts, as a fraction of the run: spread out, so that each settles before the next. */
const incidentAt: Record<Incidents.Kind, number> = { kill: 0.12, pause: 0.4, outage: 0.72 }

/** The "work" inside a section, between reading and writing the ledger. */
const holdMs = 150

const serverLayer = (
  options: Options.Options
): Layer.Layer<DynamoServer.DynamoServer, DynamoServer.DynamoServerError> =>
  options.endpoint !== undefined
    ? DynamoServer.layerEndpoint(options.endpoint, {
      region: process.env["AWS_REGION"] ?? process.env["AWS_DEFAULT_REGION"] ?? DynamoServer.defaultRegion
    })
    : options.engine === "dynamodb-local"
    ? DynamoServer.layerDynamoDBLocal
    : DynamoServer.layerDynalite

const run = (options: Options.Options) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const runId = Date.now().toString(36)
    const lockName = `demo/${runId}`
    const ledgerKey = `demo/${runId}/ledger`
    const clientConfig = server.clientConfig
    const interactive = !options.plain && process.stdout.isTTY === true

    yield* say(
      `Leasehold demo, Effect ${options.line} line: ${options.workers} worker processes, one lock, a shared ledger; lease ${options.leaseMs} ms, ` +
        `maxClockSkew ${options.maxClockSkewMs} ms, ${options.durationMs / 1000} s of work; incidents: ${
          options.incidents.length === 0 ? "none" : options.incidents.join(", ")
        }`
    )
    if (options.unsafe) {
      yield* say("--unsafe: the workers run their sections WITHOUT the lock; expect lost updates and a failing verdict")
    }
    yield* say(
      `server: ${server.engine} at ${server.serverEndpoint}${server.proxied ? " (behind a counting proxy)" : ""}`
    )
    const table = yield* DynamoLockTable.createTable({ tableName: options.tableName, clientConfig })
    yield* say(`table ${table.tableName}: ${table.created ? "created" : "already there"}, TTL ${table.ttl}`)

    // The parent's own view of the table goes to the server directly: not counted, and answered during the outage.
    const directConfig = { ...clientConfig, endpoint: server.serverEndpoint }
    const observer = yield* DynamoLockStore.make({ tableName: options.tableName, clientConfig: directConfig })
    const ledgerClient = yield* Effect.acquireRelease(
      Effect.sync(() => new DynamoDBClient(directConfig)),
      (client) => Effect.sync(() => client.destroy())
    )
    const ledger = Ledger.make(ledgerClient, options.tableName, ledgerKey)

    const started = Date.now()
    const state = yield* SubscriptionRef.make(
      State.initial(options.workers, started, options.durationMs, options.line)
    )
    const program = yield* Pool.workerProgram(options.line)
    yield* say(`starting ${options.workers} workers (${program.bundled ? "bundled with esbuild" : "tsx"})...`)
    const workers = yield* Effect.forEach(
      Array.from({ length: options.workers }, (_, worker) => worker),
      (worker) =>
        Pool.spawn(program, {
          worker,
          clientConfig,
          tableName: options.tableName,
          lockName,
          ledgerKey,
          leaseMs: options.leaseMs,
          maxClockSkewMs: options.maxClockSkewMs,
          holdMs,
          // Long enough that the SIGSTOP surely lands while the write is still held, even on a busy machine.
          slowWriteMs: Math.max(1500, options.leaseMs),
          useLock: !options.unsafe
        }, (event) => SubscriptionRef.update(state, (s) => State.apply(s, event, Date.now()))),
      { concurrency: "unbounded" }
    )
    yield* state.changes.pipe(
      Stream.filter((s) => s.workers.every((worker) => worker.state === "ready")),
      Stream.runHead,
      Effect.timeoutFail({
        duration: Duration.seconds(60),
        onTimeout: () => new Error("workers did not start within 60 s")
      })
    )
    yield* say(
      `workers ready after ${((Date.now() - started) / 1000).toFixed(1)} s, on ${
        State.runtimes(yield* SubscriptionRef.get(state)).join("; ")
      }; go`
    )

    if (server.proxied) yield* server.resetRequests
    const startedAt = Date.now()
    yield* SubscriptionRef.update(state, (s) => ({ ...s, startedAt, phase: "working" }))
    yield* Effect.forEach(workers, (worker) => worker.send("go"), { discard: true })

    // The live view.
    const record = yield* Ref.make<LockRecord | undefined>(undefined)
    yield* observer.inspect(lockName).pipe(
      Effect.flatMap((found) => Ref.set(record, Option.getOrUndefined(found))),
      Effect.ignore,
      Effect.repeat(Schedule.spaced("100 millis")),
      Effect.forkScoped
    )
    const lines = yield* Ref.make(0)
    const seen = yield* Ref.make(0)
    const render = Effect.gen(function*() {
      const s = yield* SubscriptionRef.get(state)
      const now = Date.now()
      const lock = yield* Ref.get(record)
      if (interactive) {
        const frame = LiveView.frame(s, lock, now)
        yield* write(LiveView.redraw(frame, yield* Ref.get(lines), process.stdout.columns || 120))
        yield* Ref.set(lines, frame.length)
      } else {
        const fresh = LiveView.newLogLines(s, yield* Ref.get(seen))
        yield* Ref.set(seen, s.log.length)
        for (const line of fresh) yield* say(line)
      }
    })
    const view = yield* Effect.forkScoped(
      Effect.zipRight(
        Effect.repeat(render, Schedule.spaced(interactive ? "200 millis" : "100 millis")),
        Effect.never
      )
    )
    const progress = interactive ? undefined : yield* Effect.forkScoped(
      Effect.repeat(
        Effect.flatMap(
          Effect.all([SubscriptionRef.get(state), Ref.get(record)]),
          ([s, lock]) => say(LiveView.progressLine(s, lock, Date.now()))
        ),
        Schedule.spaced("5 seconds")
      ).pipe(Effect.delay("5 seconds"))
    )

    // The incidents, each at its moment.
    const context: Incidents.Context = {
      state,
      workers,
      server,
      leaseMs: options.leaseMs,
      maxClockSkewMs: options.maxClockSkewMs
    }
    const incidents = yield* Effect.forkScoped(Effect.forEach(options.incidents, (kind) =>
      Effect.gen(function*() {
        const due = startedAt + incidentAt[kind] * options.durationMs
        yield* Effect.sleep(Duration.millis(Math.max(0, due - Date.now())))
        yield* SubscriptionRef.update(state, (s) => ({ ...s, phase: `incident: ${kind}` }))
        const result = kind === "kill"
          ? yield* Incidents.kill(context)
          : kind === "pause"
          ? yield* Incidents.pause(context)
          : yield* Incidents.outage(context, Math.round(options.leaseMs * 0.75))
        yield* SubscriptionRef.update(state, (s) => ({ ...s, phase: "working" }))
        return result
      })))

    yield* Effect.sleep(Duration.millis(options.durationMs))
    const incidentResults = yield* Fiber.join(incidents)
    yield* SubscriptionRef.update(state, (s) => ({ ...s, phase: "stopping" }))
    const killed = new Set(incidentResults.flatMap((incident) => incident._tag === "Kill" ? [incident.worker] : []))
    yield* Effect.forEach(workers, (worker) => killed.has(worker.id) ? Effect.void : worker.send("stop"), {
      discard: true
    })
    const exits = yield* Effect.forEach(workers, (worker) =>
      killed.has(worker.id)
        ? Effect.succeed<Verdict.WorkerExit>({ worker: worker.id, exit: "killed" })
        : worker.exitCode.pipe(
          Effect.timeout("20 seconds"),
          Effect.map((exit): Verdict.WorkerExit => ({ worker: worker.id, exit })),
          Effect.orElseSucceed((): Verdict.WorkerExit => ({ worker: worker.id, exit: -1 }))
        ), { concurrency: "unbounded" })
    for (const exit of exits) {
      if (exit.exit !== 0 && exit.exit !== "killed") {
        const tail = yield* workers[exit.worker]!.stderr
        yield* Effect.logError(`worker ${exit.worker} exited ${exit.exit}; its stderr:\n${tail}`)
      }
    }
    yield* render
    yield* Fiber.interrupt(view)
    if (progress !== undefined) yield* Fiber.interrupt(progress)

    const snapshot = yield* ledger.snapshot
    const storeCalls = server.proxied ? yield* server.requests : undefined
    const verdict = Verdict.compute({
      leaseMs: options.leaseMs,
      maxClockSkewMs: options.maxClockSkewMs,
      // A waiter sleeps 0.5 to 1 poll interval (lease / 10, at most 1 s) between tries: 1.5 intervals leave it room,
      // plus scheduling on a busy machine.
      takeoverAllowanceMs: Math.min(1000, options.leaseMs / 10) * 1.5 + 750,
      events: (yield* SubscriptionRef.get(state)).events,
      ledger: snapshot,
      incidents: incidentResults,
      exits,
      storeCalls
    })
    yield* say("")
    yield* say(
      `Verdict after ${((Date.now() - started) / 1000).toFixed(1)} s (from the ledger and the workers' reports):`
    )
    for (const line of Verdict.format(verdict)) yield* say(line)
    return verdict.ok
  }).pipe(Effect.scoped, Effect.provide(serverLayer(options)))

const main = Effect.gen(function*() {
  const parsed = Options.parse(process.argv.slice(2))
  if (Either.isLeft(parsed)) {
    yield* Effect.sync(() => process.stderr.write(`${parsed.left}\n\n${Options.usage}\n`))
    return false
  }
  if (parsed.right.help) {
    yield* say(Options.usage)
    return true
  }
  return yield* run(parsed.right).pipe(
    Effect.catchIf(
      (error) => error instanceof Pool.LineUnavailable,
      (error) => Effect.as(Effect.sync(() => process.stderr.write(`${error.message}\n`)), false)
    )
  )
}).pipe(
  Effect.provide(NodeContext.layer),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.prettyLoggerDefault))),
  Logger.withMinimumLogLevel(LogLevel.Info)
)

NodeRuntime.runMain(main, {
  teardown: (exit, onExit) => {
    const ok = Exit.isSuccess(exit) && exit.value
    if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) {
      process.stderr.write(`demo failed: ${Cause.pretty(exit.cause)}\n`)
    }
    onExit(ok ? 0 : 1)
  }
})
