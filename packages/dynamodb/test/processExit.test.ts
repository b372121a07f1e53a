/**
 * A finished program exits: a Node program (`fixtures/finishedProgram.ts`, run as a child process) uses the store
 * while the test proxy holds dynalite's answers back, its last effect ends, and the process must end with it, although
 * the tidying up it leaves behind (the release of a lost lease, the give-back of an unanswered acquire) has not
 * reached the server. Scripts, cron jobs and Lambda handlers expect the process to end when the program does.
 *
 * Real time throughout (these are processes). What is timed is the gap between the program's last line and the
 * process's exit, as the test sees them: a Node process with nothing left to do exits in milliseconds, and the bound
 * allows a busy two-core machine a wide margin on top.
 */
import { expect, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import { Deferred, Duration, Effect, Layer, Option, Ref, Stream } from "effect"
import { fileURLToPath } from "node:url"
import { layerScoped } from "../src/internal/effectLine.js"
import { FileSystem, nodeServices, Service, sigkill, spawn } from "./effectLine.js"
import * as FinishedProgram from "./fixtures/finishedProgramProtocol.js"
import { makeTable, unique } from "./support.js"

const programScript = fileURLToPath(new URL("./fixtures/finishedProgram.ts", import.meta.url))
const packageDirectory = fileURLToPath(new URL("..", import.meta.url))

/** The program bundled once into one ESM file, which plain `node` starts quickly. */
const ProgramBundle = Service<string>("processExit.test/ProgramBundle")

const ProgramBundleLive = layerScoped(
  ProgramBundle,
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const directory = yield* fs.makeTempDirectoryScoped({ prefix: "leasehold-finished-" })
    const outfile = `${directory}/finishedProgram.mjs`
    yield* Effect.orDie(
      NodeProgram.bundle({
        entry: programScript,
        outfile,
        workingDirectory: packageDirectory,
        conditions: ["@leasehold/source"]
      })
    )
    return outfile
  })
)

/**
 * How long a finished program may linger once its store's scope has closed: not at all (the store abandons its
 * requests in flight, and the tidying up left behind neither sends more nor keeps timers that hold the process). The
 * bound is a busy machine's scheduling of two processes and Node's own shutdown.
 */
const exitBoundMs = 1_000

/**
 * The longest one background release attempt waits for its answer (`release.ts`): what a finished program may
 * linger, at most, while a store that outlives it has that request in flight.
 */
const releaseAttemptMs = 1_000

/**
 * With such a store: one attempt, and more than as much again for a busy machine; still less than a program lingered
 * that waited for every attempt of the release and the backoffs between them.
 */
const outlivingBoundMs = releaseAttemptMs * 2.5

/** How long the program may take to say something: its start-up alone takes seconds on a busy machine. */
const lineTimeout = Duration.seconds(30)

interface Program {
  /** Waits for the line with this tag; returns the monotonic time (ms) at which the test read it. */
  readonly line: (
    tag: FinishedProgram.Event["_tag"]
  ) => Effect.Effect<{ readonly event: FinishedProgram.Event; readonly at: number }>
  /** Waits for the exit; returns the code and the monotonic time (ms) at which the test saw it. */
  readonly exit: Effect.Effect<{ readonly code: number; readonly at: number }>
}

const monotonicMs = () => performance.now()

const spawnProgram = (settings: FinishedProgram.Settings) =>
  Effect.gen(function*() {
    const bundle = yield* ProgramBundle
    const environment = { [FinishedProgram.settingsVariable]: JSON.stringify(settings) }
    const child = yield* spawn(process.execPath, [bundle], environment)
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(child.isRunning, (running) => running ? sigkill(child) : Effect.void).pipe(Effect.ignore)
    )
    const lines = yield* Ref.make<ReadonlyArray<{ readonly event: FinishedProgram.Event; readonly at: number }>>([])
    const changed = yield* Ref.make(yield* Deferred.make<void>())
    const stderr = yield* Ref.make("")
    yield* child.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((text) =>
        Effect.gen(function*() {
          const at = monotonicMs()
          const event = JSON.parse(text) as FinishedProgram.Event
          yield* Ref.update(lines, (all) => [...all, { event, at }])
          const waiting = yield* Ref.getAndSet(changed, yield* Deferred.make<void>())
          yield* Deferred.succeed(waiting, undefined)
        })
      ),
      Effect.ignore,
      Effect.forkScoped
    )
    yield* child.stderr.pipe(
      Stream.decodeText(),
      Stream.runForEach((text) => Ref.update(stderr, (all) => all + text)),
      Effect.ignore,
      Effect.forkScoped
    )
    const exited = yield* Deferred.make<{ readonly code: number; readonly at: number }>()
    yield* child.exitCode.pipe(
      Effect.flatMap((code) => Deferred.succeed(exited, { code: Number(code), at: monotonicMs() })),
      Effect.ignore,
      Effect.forkScoped
    )
    /** Waits for `self` as long as the program may take to say something, or dies with what it wrote to stderr. */
    const inTime = (what: string) => <A>(self: Effect.Effect<A>): Effect.Effect<A> =>
      self.pipe(
        Effect.timeoutOption(lineTimeout),
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.flatMap(
              Ref.get(stderr),
              (text) => Effect.die(`no ${what} within ${Duration.format(lineTimeout)}; the program's stderr:\n${text}`)
            ),
          onSome: Effect.succeed
        }))
      )
    const line = (tag: FinishedProgram.Event["_tag"]) => {
      const find: Effect.Effect<{ readonly event: FinishedProgram.Event; readonly at: number }> = Effect.gen(
        function*() {
          const wait = yield* Ref.get(changed)
          const found = (yield* Ref.get(lines)).find((line) => line.event._tag === tag)
          if (found !== undefined) return found
          yield* Deferred.await(wait)
          return yield* find
        }
      )
      return inTime(`${tag} line`)(find)
    }
    const exit = inTime("exit")(Deferred.await(exited))
    const program: Program = { line, exit }
    return program
  })

/** Settings for a scenario on a fresh table of the test server. */
const settingsFor = (scenario: FinishedProgram.Settings["scenario"], store: FinishedProgram.Settings["store"]) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const { tableName } = yield* makeTable()
    const settings: FinishedProgram.Settings = {
      scenario,
      store,
      clientConfig: {
        endpoint: server.clientConfig.endpoint,
        region: server.clientConfig.region,
        credentials: server.clientConfig.credentials ?? DynamoServer.localCredentials
      },
      tableName,
      name: unique(scenario)
    }
    return settings
  })

/** Holds the server's answers back from now until the test ends. */
const outage = Effect.flatMap(
  DynamoServer.DynamoServer,
  (server) => Effect.andThen(server.pause, Effect.addFinalizer(() => server.resume))
)

/**
 * Runs a scenario: the program holds a lease until the server is held (`lock`, `permits`), or meets a held server
 * from the start (`acquire`). Returns how its last effect ended, its exit code, and how long it lingered after.
 */
const runScenario = (scenario: FinishedProgram.Settings["scenario"], store: FinishedProgram.Settings["store"]) =>
  Effect.gen(function*() {
    const settings = yield* settingsFor(scenario, store)
    if (scenario === "acquire") yield* outage
    const program = yield* spawnProgram(settings)
    if (scenario !== "acquire") {
      yield* program.line("Held")
      yield* outage
    }
    const ended = yield* program.line("Ended")
    const exit = yield* program.exit
    return {
      outcome: (ended.event as Extract<FinishedProgram.Event, { _tag: "Ended" }>).outcome,
      code: exit.code,
      lingeredMs: exit.at - ended.at
    }
  })

const TestLayer = Layer.mergeAll(
  DynamoServer.layerDynalite,
  nodeServices,
  ProgramBundleLive.pipe(Layer.provide(nodeServices))
)

layer(TestLayer, { excludeTestServices: true })("a finished program exits while its tidying up is unanswered", (it) => {
  const cases: ReadonlyArray<{
    readonly title: string
    readonly scenario: FinishedProgram.Settings["scenario"]
    readonly store: FinishedProgram.Settings["store"]
    readonly outcome: string
    readonly boundMs: number
  }> = [
    {
      title: "a lock lost to an outage, its release unanswered (the store's own client)",
      scenario: "lock",
      store: "built",
      outcome: "LockLost expired",
      boundMs: exitBoundMs
    },
    {
      title: "a lock lost to an outage, its release unanswered (a client of the program's)",
      scenario: "lock",
      store: "own",
      outcome: "LockLost expired",
      boundMs: exitBoundMs
    },
    {
      title: "a semaphore's permits lost to an outage, their release unanswered",
      scenario: "permits",
      store: "own",
      outcome: "LockLost expired",
      boundMs: exitBoundMs
    },
    {
      title: "an acquire abandoned unanswered, its give-back unanswered",
      scenario: "acquire",
      store: "own",
      outcome: "LockNotAcquired",
      boundMs: exitBoundMs
    },
    {
      title: "a lock lost to an outage, with a store that outlives the program: one release attempt at most",
      scenario: "lock",
      store: "outliving",
      outcome: "LockLost expired",
      boundMs: outlivingBoundMs
    }
  ]
  for (const { boundMs, outcome, scenario, store, title } of cases) {
    it.effect(title, () =>
      Effect.gen(function*() {
        const result = yield* runScenario(scenario, store)
        expect([result.outcome, result.code]).toEqual([outcome, 0])
        expect(result.lingeredMs, `lingered ${Math.round(result.lingeredMs)} ms after its last line`)
          .toBeLessThan(boundMs)
      }).pipe(Effect.scoped), 60_000)
  }
})
