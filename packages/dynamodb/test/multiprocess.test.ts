/**
 * Mutual exclusion between OS processes: worker processes (`fixtures/lockWorker.ts`) share one dynalite and contend
 * for one lock with `Lock.withLock`, each section doing a racy read-modify-write of a counter item. The workers print
 * what they did; the test checks the result from their lines and from the table.
 *
 * Real time throughout (these are processes), with short leases. Nothing is asserted about speed except the takeover
 * bound after a holder is SIGKILLed, which is what absolute-mode takeover promises: within lease + maxClockSkew (plus
 * a waiter's poll) of the holder's last renew, and never before its `leaseUntil + maxClockSkew`.
 *
 * Every child is started in the test's scope and SIGKILLed (with its process group) when the scope closes, whatever
 * the outcome; a worker also exits when its stdin closes, so not even a killed test runner leaves orphans.
 */
import { expect, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import { Deferred, Duration, Effect, Layer, Option, Ref, Stream, SubscriptionRef } from "effect"
import { fileURLToPath } from "node:url"
import { layerScoped } from "../src/internal/effectLine.js"
import { changes, FileSystem, nodeServices, Service, sigkill, spawn } from "./effectLine.js"
import * as Protocol from "./fixtures/lockWorkerProtocol.js"
import { getRaw, makeStore, makeTable, timeoutOrElse, unique } from "./support.js"

const workerScript = fileURLToPath(new URL("./fixtures/lockWorker.ts", import.meta.url))
const packageDirectory = fileURLToPath(new URL("..", import.meta.url))

/**
 * The worker bundled once (esbuild, which tsx ships with) into one ESM file in a temporary directory. Under
 * `node --import tsx`, each worker spends seconds of CPU resolving and loading hundreds of modules through the loader
 * hooks; four of them starting together on two cores took about 7 s, the bundle about 2 s.
 */
const WorkerBundle = Service<string>("multiprocess.test/WorkerBundle")

const WorkerBundleLive = layerScoped(
  WorkerBundle,
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const directory = yield* fs.makeTempDirectoryScoped({ prefix: "leasehold-worker-" })
    const outfile = `${directory}/lockWorker.mjs`
    yield* Effect.orDie(
      NodeProgram.bundle({
        entry: workerScript,
        outfile,
        workingDirectory: packageDirectory,
        conditions: ["@leasehold/source"]
      })
    )
    return outfile
  })
)

/** Short leases keep the file quick; the takeover bound below is derived from them. */
const leaseMs = 1000
const maxClockSkewMs = 200
const pollIntervalMs = 100
/** Waiters sleep 0.5 to 1 x pollInterval between polls; the bound allows half an interval more for a busy machine. */
const maxPollMs = pollIntervalMs * 1.5
/**
 * The one allowance that is not a lock parameter: the acquiring round trip to dynalite and the scheduling of a
 * woken process on a busy two-core machine.
 */
const roundTripAllowanceMs = 250

/** How long a worker may take to say something (its start-up alone takes seconds on a busy machine). */
const eventTimeout = Duration.seconds(30)

type WorkerEvent = Protocol.WorkerEvent
type Tagged<T extends WorkerEvent["_tag"]> = Extract<WorkerEvent, { readonly _tag: T }>

interface Worker {
  readonly id: number
  /** Every event the worker printed so far, in order. */
  readonly events: SubscriptionRef.SubscriptionRef<ReadonlyArray<WorkerEvent>>
  /** Writes the start line to its stdin. */
  readonly go: Effect.Effect<void>
  readonly kill: Effect.Effect<void>
  /** Its exit code; fails if it was killed by a signal. */
  readonly exitCode: Effect.Effect<number, Error>
  /** What it wrote to stderr (logs, a failure's cause), for failure messages. */
  readonly stderr: Effect.Effect<string>
  /** Completes when its stdout has ended: every event it printed has been read. */
  readonly stdoutEnded: Effect.Effect<void>
}

const describeWorker = (worker: Worker) =>
  Effect.map(worker.stderr, (stderr) => `worker ${worker.id}${stderr === "" ? "" : `; its stderr:\n${stderr}`}`)

const spawnWorker = (settings: Protocol.WorkerSettings) =>
  Effect.gen(function*() {
    const bundle = yield* WorkerBundle
    const environment = { [Protocol.settingsVariable]: Protocol.encodeSettings(settings) }
    const child = yield* spawn(process.execPath, [bundle], environment)
    // Added after the start, so it runs first when the scope closes: no polite SIGTERM to wait on, just gone.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(child.isRunning, (running) => running ? sigkill(child) : Effect.void).pipe(Effect.ignore)
    )
    const events = yield* SubscriptionRef.make<ReadonlyArray<WorkerEvent>>([])
    const stderr = yield* Ref.make("")
    const stdoutEnded = yield* Deferred.make<void>()
    yield* child.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        Option.match(Protocol.decodeEvent(line), {
          onNone: () => Ref.update(stderr, (text) => `${text}[stdout] ${line}\n`),
          onSome: (event) => SubscriptionRef.update(events, (all) => [...all, event])
        })
      ),
      Effect.ignore,
      Effect.ensuring(Deferred.succeed(stdoutEnded, undefined)),
      Effect.forkScoped
    )
    yield* child.stderr.pipe(
      Stream.decodeText(),
      Stream.runForEach((text) => Ref.update(stderr, (all) => all + text)),
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
    const worker: Worker = {
      id: settings.worker,
      events,
      go: Deferred.succeed(go, undefined),
      kill: Effect.orDie(sigkill(child)),
      exitCode: Effect.map(child.exitCode, Number),
      stderr: Ref.get(stderr),
      stdoutEnded: Deferred.await(stdoutEnded)
    }
    return worker
  })

/** The first event of `worker` that `match` picks; fails with the worker's stderr if it exits or stays silent. */
const awaitEvent = <A>(worker: Worker, what: string, match: (event: WorkerEvent) => A | undefined) => {
  const find = (events: ReadonlyArray<WorkerEvent>) => {
    for (const event of events) {
      const found = match(event)
      if (found !== undefined) return Option.some(found)
    }
    return Option.none()
  }
  const seen = changes(worker.events).pipe(
    Stream.map(find),
    Stream.filter(Option.isSome),
    Stream.map((found) => found.value),
    Stream.runHead,
    Effect.map(Option.getOrThrow),
    Effect.orDie
  )
  const gaveUp = (why: string) =>
    Effect.flatMap(describeWorker(worker), (who) => Effect.die(`${who}\n${why} before ${what}`))
  const ended = Effect.andThen(
    worker.stdoutEnded,
    Effect.flatMap(
      SubscriptionRef.get(worker.events),
      (events) => Option.match(find(events), { onNone: () => gaveUp("its output ended"), onSome: Effect.succeed })
    )
  )
  return Effect.raceFirst(seen, ended).pipe(
    timeoutOrElse({ duration: eventTimeout, orElse: () => gaveUp("timed out") })
  )
}

const tagIs = <T extends WorkerEvent["_tag"]>(tag: T, iteration?: number) => (event: WorkerEvent) =>
  event._tag === tag && (iteration === undefined || (event as { iteration?: number }).iteration === iteration)
    ? event as Tagged<T>
    : undefined

/** Waits for a worker to print `Done` and exit 0. */
const awaitDone = (worker: Worker) =>
  Effect.gen(function*() {
    yield* awaitEvent(worker, "printing Done", tagIs("Done"))
    const code = yield* worker.exitCode.pipe(
      timeoutOrElse({ duration: eventTimeout, orElse: () => Effect.fail(new Error("did not exit")) }),
      Effect.matchEffect({
        onFailure: (error) => Effect.flatMap(describeWorker(worker), (who) => Effect.die(`${who}\n${error.message}`)),
        onSuccess: Effect.succeed
      })
    )
    if (code !== 0) {
      return yield* Effect.flatMap(describeWorker(worker), (who) => Effect.die(`${who}\nexited with ${code}`))
    }
  })

const eventsOf = (workers: ReadonlyArray<Worker>) =>
  Effect.map(Effect.forEach(workers, (worker) => SubscriptionRef.get(worker.events)), (all) => all.flat())

const sectionsOf = (events: ReadonlyArray<WorkerEvent>) =>
  events.flatMap((event) => event._tag === "Section" ? [event] : []).sort((a, b) => a.start - b.start)

const readCounter = (tableName: string, counterKey: string) =>
  Effect.map(getRaw(tableName, { key: { S: counterKey } }), (output) => Number(output.Item?.value?.N ?? "0"))

/** A table with a lock and a counter, and settings for workers on it. */
const makeScenario = (label: string) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const { tableName } = yield* makeTable()
    const base = {
      clientConfig: {
        endpoint: server.clientConfig.endpoint,
        region: server.clientConfig.region,
        credentials: server.clientConfig.credentials ?? DynamoServer.localCredentials
      },
      tableName,
      lockName: unique(`${label}-lock`),
      counterKey: unique(`${label}-counter`),
      leaseMs,
      maxClockSkewMs,
      pollIntervalMs
    }
    return { tableName, base }
  })

/** Spawns the workers together and waits until each is ready (past its TypeScript start-up). */
const spawnAll = (settings: ReadonlyArray<Protocol.WorkerSettings>) =>
  Effect.gen(function*() {
    const workers = yield* Effect.forEach(settings, spawnWorker, { concurrency: "unbounded" })
    yield* Effect.forEach(workers, (worker) => awaitEvent(worker, "printing Ready", tagIs("Ready")), {
      concurrency: "unbounded",
      discard: true
    })
    return workers
  })

/** Sections in start order never overlap, and their fences increase strictly. */
const expectSerial = (sections: ReadonlyArray<Tagged<"Section">>) => {
  for (let i = 1; i < sections.length; i++) {
    const before = sections[i - 1]!
    const after = sections[i]!
    expect(after.start, `section ${i} (worker ${after.worker}) began before section ${i - 1} ended`)
      .toBeGreaterThanOrEqual(before.end)
    expect(after.fence, `fence of section ${i}`).toBeGreaterThan(before.fence)
  }
}

const TestLayer = Layer.mergeAll(
  DynamoServer.layerDynalite,
  nodeServices,
  WorkerBundleLive.pipe(Layer.provide(nodeServices))
)

layer(TestLayer, { excludeTestServices: true })("Lock.withLock across OS processes (dynalite)", (it) => {
  it.effect("without the lock the section is racy: concurrent workers lose updates", () =>
    Effect.gen(function*() {
      const { base, tableName } = yield* makeScenario("racy")
      const iterations = 5
      const workers = yield* spawnAll(
        [0, 1].map((worker) => ({ ...base, worker, iterations, holdMs: 30, useLock: false }))
      )
      yield* Effect.forEach(workers, (worker) => worker.go, { discard: true })
      yield* Effect.forEach(workers, awaitDone, { concurrency: "unbounded", discard: true })
      const sections = sectionsOf(yield* eventsOf(workers))
      expect(sections).toHaveLength(2 * iterations)
      // The control for the next test: these checks must be able to fail.
      expect(yield* readCounter(tableName, base.counterKey)).toBeLessThan(sections.length)
    }).pipe(Effect.scoped), 60_000)

  it.effect(
    "4 workers: the counter equals the sections, which never overlap and have increasing fences",
    () =>
      Effect.gen(function*() {
        const { base, tableName } = yield* makeScenario("serial")
        const workerCount = 4
        const iterations = 5
        const workers = yield* spawnAll(
          Array.from(
            { length: workerCount },
            (_, worker) => ({ ...base, worker, iterations, holdMs: 20, useLock: true })
          )
        )
        yield* Effect.forEach(workers, (worker) => worker.go, { discard: true })
        yield* Effect.forEach(workers, awaitDone, { concurrency: "unbounded", discard: true })

        const events = yield* eventsOf(workers)
        const sections = sectionsOf(events)
        expect(sections).toHaveLength(workerCount * iterations)
        expectSerial(sections)
        // Each section saw every earlier section's write, and no write was lost.
        expect(sections.map((section) => section.read)).toEqual(sections.map((_, index) => index))
        expect(yield* readCounter(tableName, base.counterKey)).toBe(sections.length)
        // The workers really contended: some asked for the lock and waited through another worker's whole section.
        const askedAt = new Map(
          events.flatMap((event) =>
            event._tag === "Acquiring" ? [[`${event.worker}/${event.iteration}`, event.at]] : []
          )
        )
        const waitedThrough = sections.filter((mine) => {
          const asked = askedAt.get(`${mine.worker}/${mine.iteration}`)!
          return sections.some((other) =>
            other.worker !== mine.worker && asked <= other.start && other.end <= mine.start
          )
        })
        expect(waitedThrough.length).toBeGreaterThan(0)
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect(
    "a holder SIGKILLed inside its section: the others take over within lease + maxClockSkew + a poll, its write never happens",
    () =>
      Effect.gen(function*() {
        const { base, tableName } = yield* makeScenario("killed")
        const iterations = 3
        const [victim, ...others] = yield* spawnAll([
          // Its first section reads the counter and then never ends: it is still inside, renewing, when killed.
          { ...base, worker: 0, iterations: 1, holdMs: 20, useLock: true, hangAt: 0 },
          ...[1, 2, 3].map((worker) => ({ ...base, worker, iterations, holdMs: 20, useLock: true }))
        ])
        yield* victim!.go
        const entered = yield* awaitEvent(victim!, "entering its section", tagIs("Entered"))
        yield* Effect.forEach(others, (worker) => worker.go, { discard: true })
        yield* Effect.forEach(others, (worker) => awaitEvent(worker, "asking for the lock", tagIs("Acquiring", 0)), {
          discard: true
        })

        // A live holder keeps its lock past its lease: its heartbeat renews while the section runs on.
        yield* Effect.sleep(Duration.millis(leaseMs + maxClockSkewMs + 300))
        const early = (yield* eventsOf(others)).filter((event) => event._tag === "Entered")
        expect(early, "nobody may enter while the holder is alive").toEqual([])

        const killedAt = Date.now()
        yield* victim!.kill
        // The dead holder's last renew, as the store has it: the earliest takeover is leaseUntil + maxClockSkew.
        const store = yield* makeStore(tableName)
        const record = Option.getOrThrow(yield* store.inspect(base.lockName))
        expect(record.fence).toBe(entered.fence)

        yield* Effect.forEach(others, awaitDone, { concurrency: "unbounded", discard: true })
        const sections = sectionsOf(yield* eventsOf(others))
        expect(sections).toHaveLength(others.length * iterations)
        expectSerial(sections)
        const first = sections[0]!
        expect(first.fence).toBeGreaterThan(entered.fence)

        // Safety: not before the dead holder's lease plus the skew bound (one host, one clock: exact).
        expect(first.start).toBeGreaterThan(record.leaseUntil + maxClockSkewMs)
        // Liveness: its last renew was before the kill, so its lease ended at most a lease after it.
        const takeoverMs = first.start - killedAt
        yield* Effect.logInfo(
          `takeover ${takeoverMs} ms after SIGKILL (${first.start - record.leaseUntil} ms after leaseUntil; bound ` +
            `${leaseMs + maxClockSkewMs + maxPollMs + roundTripAllowanceMs} ms)`
        )
        expect(takeoverMs).toBeLessThanOrEqual(leaseMs + maxClockSkewMs + maxPollMs + roundTripAllowanceMs)

        // The killed section read the counter but never wrote it: the counter is the completed sections, exactly.
        expect(yield* SubscriptionRef.get(victim!.events)).not.toContainEqual(
          expect.objectContaining({ _tag: "Section" })
        )
        expect(sections.map((section) => section.read)).toEqual(sections.map((_, index) => index))
        expect(yield* readCounter(tableName, base.counterKey)).toBe(sections.length)
      }).pipe(Effect.scoped),
    60_000
  )
})
