/**
 * Both Effect lines on one table: an Effect 3 process (the repository's `packages/dynamodb` on effect 3, run by the
 * repository's Node under tsx, as its own tests run their workers) and an Effect 4 process (this line, bundled and run
 * by this line's Node) take turns on one lock of one dynalite table, many rounds each. They share the table's layout
 * and the core's rules, so they must exclude each other exactly as two processes of one line do: no two sections that
 * ran to their end under their leases overlap, and the fences, in the order the sections began, keep increasing
 * across both lines.
 *
 * Real time throughout (these are processes). A lease lost to a pause (a busy machine can stall a process past its
 * lease) is a correct outcome: the worker reports it, the test counts it, and only the sections that ran to their end
 * are held to not overlapping.
 */
import { NodeServices } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import { Context, Deferred, Duration, Effect, FileSystem, Layer, Option, Ref, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { fileURLToPath } from "node:url"
import * as Protocol from "./fixtures/crossLineProtocol.js"
import { makeTable, unique } from "./support.js"

const effect4Worker = fileURLToPath(new URL("./fixtures/crossLineWorker.ts", import.meta.url))
const packageDirectory = fileURLToPath(new URL("..", import.meta.url))
/** The repository's root: the Effect 3 worker runs from there, on the repository's own packages and Node. */
const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url))
const effect3Worker = "packages/dynamodb/test/fixtures/crossLineWorker.ts"

/** The Effect 4 worker bundled once into one ESM file, which plain `node` starts quickly. */
class WorkerBundle extends Context.Service<WorkerBundle, string>()("crossLine.test/WorkerBundle") {}

const WorkerBundleLive = Layer.effect(
  WorkerBundle,
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const directory = yield* fs.makeTempDirectoryScoped({ prefix: "leasehold-cross-line-" })
    const outfile = `${directory}/crossLineWorker.mjs`
    yield* Effect.orDie(
      NodeProgram.bundle({
        entry: effect4Worker,
        outfile,
        workingDirectory: packageDirectory,
        conditions: ["@leasehold/source"]
      })
    )
    return outfile
  })
)

/** Rounds per worker: enough turns of the lock between the lines to matter, quick on dynalite. */
const iterations = 25
const leaseMs = 2_000
const maxClockSkewMs = 200
const pollIntervalMs = 50
const holdMs = 15

/** The Effect 3 worker starts under tsx, which takes seconds of CPU on a busy two-core machine. */
const readyTimeout = Duration.seconds(60)
/** Every round of both workers, with room for a busy machine. */
const doneTimeout = Duration.seconds(90)

interface Worker {
  readonly line: Protocol.Line
  /** Every event it printed so far, in order. */
  readonly events: Effect.Effect<ReadonlyArray<Protocol.Event>>
  /** Writes the start line to its stdin. */
  readonly go: Effect.Effect<void>
  /** Waits (at most `timeout`) for an event with this tag; dies with the worker's stderr if it never comes. */
  readonly awaitEvent: (tag: Protocol.Event["_tag"], timeout: Duration.Duration) => Effect.Effect<void>
  /** Its exit code. */
  readonly exitCode: Effect.Effect<number>
}

const spawnWorker = (command: ChildProcess.Command, line: Protocol.Line) =>
  Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const child = yield* spawner.spawn(command)
    // Added after the start, so it runs first when the scope closes: no polite SIGTERM to wait on, just gone.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(child.isRunning, (running) => running ? child.kill({ killSignal: "SIGKILL" }) : Effect.void).pipe(
        Effect.ignore
      )
    )
    const events = yield* Ref.make<ReadonlyArray<Protocol.Event>>([])
    const output = yield* Ref.make("")
    const changed = yield* Ref.make(yield* Deferred.make<void>())
    const ended = yield* Deferred.make<void>()
    const notify = Effect.flatMap(Deferred.make<void>(), (next) =>
      Effect.flatMap(Ref.getAndSet(changed, next), (waiting) => Deferred.succeed(waiting, undefined)))
    yield* child.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((text) =>
        Option.match(Protocol.decodeEvent(text), {
          onNone: () =>
            Ref.update(output, (all) => `${all}[stdout] ${text}\n`),
          onSome: (event) => Effect.andThen(Ref.update(events, (all) => [...all, event]), notify)
        })
      ),
      Effect.ignore,
      Effect.ensuring(Effect.andThen(Deferred.succeed(ended, undefined), notify)),
      Effect.forkScoped
    )
    yield* child.stderr.pipe(
      Stream.decodeText(),
      Stream.runForEach((text) => Ref.update(output, (all) => all + text)),
      Effect.ignore,
      Effect.forkScoped
    )
    // The start line, then stdin stays open: the worker exits when it closes.
    const go = yield* Deferred.make<void>()
    yield* Stream.fromEffect(Deferred.await(go)).pipe(
      Stream.map(() => new TextEncoder().encode("go\n")),
      Stream.concat(Stream.never),
      Stream.run(child.stdin),
      Effect.ignore,
      Effect.forkScoped
    )
    const gaveUp = (why: string) =>
      Effect.flatMap(Ref.get(output), (text) => Effect.die(`the ${line} worker ${why}; its output:\n${text}`))
    const awaitEvent = (tag: Protocol.Event["_tag"], timeout: Duration.Duration): Effect.Effect<void> => {
      const find: Effect.Effect<void> = Effect.gen(function*() {
        const wait = yield* Ref.get(changed)
        if ((yield* Ref.get(events)).some((event) => event._tag === tag)) return
        if (yield* Deferred.isDone(ended)) return yield* gaveUp(`ended its output before ${tag}`)
        yield* Deferred.await(wait)
        return yield* find
      })
      return find.pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => gaveUp(`printed no ${tag} within ${Duration.format(timeout)}`)
        })
      )
    }
    const worker: Worker = {
      line,
      events: Ref.get(events),
      go: Deferred.succeed(go, undefined),
      awaitEvent,
      exitCode: Effect.orDie(Effect.map(child.exitCode, Number))
    }
    return worker
  })

/** A fresh table and one lock on it, and the settings of a worker of `line` on them. */
const makeScenario = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const { tableName } = yield* makeTable()
  const lockName = unique("cross-line")
  const settingsOf = (line: Protocol.Line): Protocol.Settings => ({
    line,
    clientConfig: {
      endpoint: server.clientConfig.endpoint,
      region: server.clientConfig.region,
      credentials: server.clientConfig.credentials ?? DynamoServer.localCredentials
    },
    tableName,
    lockName,
    iterations,
    leaseMs,
    maxClockSkewMs,
    pollIntervalMs,
    holdMs
  })
  return { settingsOf }
})

const environment = (settings: Protocol.Settings) => ({
  env: { [Protocol.settingsVariable]: Protocol.encodeSettings(settings) },
  extendEnv: true
})

const TestLayer = Layer.mergeAll(
  DynamoServer.layerDynalite,
  NodeServices.layer,
  WorkerBundleLive.pipe(Layer.provide(NodeServices.layer))
)

layer(TestLayer, { excludeTestServices: true })("an Effect 3 and an Effect 4 process on one table (dynalite)", (it) => {
  it.effect(
    "they exclude each other over many rounds, and the fences they see increase across both",
    () =>
      Effect.gen(function*() {
        const { settingsOf } = yield* makeScenario
        const bundle = yield* WorkerBundle
        const workers = yield* Effect.all([
          spawnWorker(
            ChildProcess.make(
              "node",
              ["--conditions=@leasehold/source", "--import", "tsx", effect3Worker],
              { cwd: repositoryRoot, ...environment(settingsOf("effect3")) }
            ),
            "effect3"
          ),
          spawnWorker(ChildProcess.make(process.execPath, [bundle], environment(settingsOf("effect4"))), "effect4")
        ])
        yield* Effect.forEach(workers, (worker) => worker.awaitEvent("Ready", readyTimeout), {
          concurrency: "unbounded",
          discard: true
        })
        yield* Effect.forEach(workers, (worker) => worker.go, { discard: true })
        yield* Effect.forEach(workers, (worker) => worker.awaitEvent("Done", doneTimeout), {
          concurrency: "unbounded",
          discard: true
        })
        for (const worker of workers) expect(yield* worker.exitCode, `the ${worker.line} worker's exit code`).toBe(0)

        const events = (yield* Effect.forEach(workers, (worker) => worker.events)).flat()
        const entered = events.flatMap((event) => event._tag === "Entered" ? [event] : []).sort((a, b) => a.at - b.at)
        const lost = events.flatMap((event) => event._tag === "Lost" ? [event] : [])
        const wasLost = (line: Protocol.Line, iteration: number) =>
          lost.some((event) => event.line === line && event.iteration === iteration)
        // A section counts as having run under its lease only if its round did not end with the lease lost.
        const sections = events.flatMap((event) =>
          event._tag === "Section" && !wasLost(event.line, event.iteration) ? [event] : []
        ).sort((a, b) => a.start - b.start)

        for (const line of ["effect3", "effect4"] as const) {
          const ran = sections.filter((section) => section.line === line).length
          const lostOfLine = lost.filter((event) => event.line === line).length
          // Every round either ran to its end or lost its lease; each line had its turns.
          expect(ran + lostOfLine, `rounds of the ${line} worker`).toBe(iterations)
          expect(ran, `sections of the ${line} worker that ran to their end`).toBeGreaterThan(0)
        }
        if (lost.length > 0) yield* Effect.logInfo(`${lost.length} lease(s) lost to pauses: ${JSON.stringify(lost)}`)

        // No two sections that ran to their end under their leases overlap, whichever lines they are of, and their
        // fences, in the order they began, increase strictly across both lines: every turn of the lock, whichever line
        // took it, wrote a greater fence. (A round that lost its lease may have entered late, after a pause, and is
        // only counted.)
        for (let i = 1; i < sections.length; i++) {
          const before = sections[i - 1]!
          const after = sections[i]!
          expect(after.start, `section ${i} (${after.line}) began before section ${i - 1} (${before.line}) ended`)
            .toBeGreaterThanOrEqual(before.end)
          expect(after.fence, `fence of section ${i} (${after.line}) after ${before.line}'s`).toBeGreaterThan(
            before.fence
          )
        }
        // Every turn, lost or not, had a fence of its own.
        expect(new Set(entered.map((entry) => entry.fence)).size).toBe(entered.length)
        // The lock really went back and forth between the lines.
        const handovers = entered.filter((entry, i) => i > 0 && entry.line !== entered[i - 1]!.line).length
        expect(handovers).toBeGreaterThan(0)
      }),
    180_000
  )
})
