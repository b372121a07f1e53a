/**
 * Running `leasehold` as a subprocess: the CLI bundled once per test file, as it ships (`tools/bundle.ts`), so each
 * run starts in a fraction of the time `node --import tsx` takes to load hundreds of modules on busy cores.
 */
import type { DynamoDBClientConfig } from "@aws-sdk/client-dynamodb"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { type Lease, Lock, LockStore, type Permits, ReadWriteLock, Semaphore } from "@leasehold/lock"
import { Context, Deferred, Effect, Fiber, Layer, Queue, type Scope } from "effect"

import { execFileSync, spawn } from "node:child_process"
import { rmSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as CliBundle from "../tools/bundle.js"

const packageDirectory = fileURLToPath(new URL("..", import.meta.url))

/** The path of the bundled CLI. */
export class CliBundlePath extends Context.Tag("cli.test/CliBundlePath")<CliBundlePath, string>() {}

/**
 * A bundle of the CLI in a folder of its own under the package's build directory, removed with the layer. It holds
 * everything it runs (dynalite for `--local` included), as the published bundle does.
 */
export const CliBundleLive = Layer.scoped(
  CliBundlePath,
  Effect.map(
    Effect.acquireRelease(
      Effect.tryPromise(async () => {
        const outdir = `${packageDirectory}build/test-bundle/${process.pid}-${Math.random().toString(36).slice(2, 8)}`
        return { outdir, entry: await CliBundle.bundle(outdir) }
      }).pipe(Effect.orDie),
      ({ outdir }) => Effect.sync(() => rmSync(outdir, { recursive: true, force: true }))
    ),
    ({ entry }) => entry
  )
)

export interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Variables the CLI reads: cleared so the developer's environment can not change what a test sees. */
const cliEnvironment = [
  "LEASEHOLD_TABLE",
  "LEASEHOLD_PREFIX",
  "DYNAMODB_ENDPOINT",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "NO_COLOR",
  "FORCE_COLOR"
]

/**
 * Runs a script with `args`, stdin closed (not a terminal), and returns its exit code and output. The child is
 * killed if the test is interrupted.
 */
export const runScript = (
  script: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  env: Record<string, string> = {}
): Effect.Effect<Result> =>
  Effect.async<Result>((resume) => {
    const base = { ...process.env }
    for (const name of cliEnvironment) delete base[name]
    const child = spawn(process.execPath, [...script, ...args], {
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Runs the bundled CLI. */
export const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.flatMap(CliBundlePath, (bundle) => runScript([bundle], args, env))

let counter = 0

/** A name no other test uses. */
export const unique = (label: string): string =>
  `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 6)}`

/**
 * Starts the bundled CLI and hands back its stdout lines as they come; the child is killed when the scope closes.
 */
export const start = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const bundle = yield* CliBundlePath
    const lines = yield* Queue.unbounded<string>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const base = { ...process.env }
        for (const name of cliEnvironment) delete base[name]
        return spawn(process.execPath, [bundle, ...args], { env: base, stdio: ["ignore", "pipe", "inherit"] })
      }),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let partial = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n")
      partial = parts.pop() ?? ""
      for (const line of parts) Queue.unsafeOffer(lines, line)
    })
    /** Waits for a line matching `pattern`, and returns it. */
    const awaitLine = (pattern: RegExp): Effect.Effect<string> =>
      Effect.flatMap(Queue.take(lines), (line) => pattern.test(line) ? Effect.succeed(line) : awaitLine(pattern))
    return { awaitLine }
  })

/** Whether util-linux `script` is there to give the CLI a terminal. */
export const hasScript = (() => {
  try {
    return execFileSync("script", ["--version"], { stdio: "pipe" }).length > 0
  } catch {
    return false
  }
})()

const shellQuote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`

/**
 * Runs the bundled CLI on a pseudo-terminal (util-linux `script`), with `env` added to the environment, and types
 * `answer` once `prompt` shows up in its output. Returns the exit code and everything the terminal showed.
 */
export const runInTerminal = (
  args: ReadonlyArray<string>,
  prompt: string,
  answer: string,
  env: Record<string, string> = {}
) =>
  Effect.flatMap(CliBundlePath, (bundle) =>
    Effect.async<Result>((resume) => {
      const base = { ...process.env }
      for (const name of cliEnvironment) delete base[name]
      const command = [process.execPath, bundle, ...args].map(shellQuote).join(" ")
      const child = spawn("script", ["-qec", command, "/dev/null"], {
        env: { ...base, ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let output = ""
      let answered = false
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk
        if (!answered && output.includes(prompt)) {
          answered = true
          child.stdin.write(answer)
        }
      })
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
      child.on("close", (code) => resume(Effect.succeed({ code, stdout: output, stderr: "" })))
      return Effect.sync(() => child.kill("SIGKILL"))
    }))

/** A store on `tableName` as an application makes it; the clock-skew guard is off (tests run on one host). */
export const storeOn = (
  clientConfig: DynamoDBClientConfig,
  tableName: string,
  options: Partial<DynamoLockStore.Options> = {}
) => DynamoLockStore.make({ tableName, clientConfig, clockSkewGuard: false, ...options })

/**
 * Runs `acquire` on `store` in a forked fiber that keeps what it acquired until the test's scope closes (a lost
 * lease interrupts the fiber that acquired it, and that must not be the test), and returns it.
 */
const keep = <A>(
  store: LockStore.LockStore,
  acquire: Effect.Effect<A, unknown, LockStore.LockStore | Scope.Scope>
): Effect.Effect<A, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const acquired = yield* Deferred.make<A, unknown>()
    const fiber = yield* Effect.scoped(
      Effect.gen(function*() {
        yield* Deferred.succeed(acquired, yield* acquire)
        return yield* Effect.never
      })
    ).pipe(
      Effect.provideService(LockStore.LockStore, store),
      Effect.tapError((error) => Deferred.fail(acquired, error)),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => Fiber.interrupt(fiber))
    return yield* Deferred.await(acquired)
  })

/** Holds the lock `name` on `store` until the scope closes. */
export const holdLock = (
  store: LockStore.LockStore,
  name: string,
  options: Lock.LockOptions = {}
): Effect.Effect<Lease.Lease, unknown, Scope.Scope> => keep(store, Lock.acquire(name, options))

/** Holds permits of the semaphore `name` on `store` until the scope closes. */
/** `name`'s read/write lock, held in `mode` by `store` until the enclosing scope closes. */
export const holdReadWrite = (
  store: LockStore.LockStore,
  name: string,
  mode: "read" | "write",
  options: Lock.LockOptions
): Effect.Effect<Permits.Permits, unknown, Scope.Scope> =>
  keep(store, mode === "read" ? ReadWriteLock.acquireRead(name, options) : ReadWriteLock.acquireWrite(name, options))

export const holdPermits = (
  store: LockStore.LockStore,
  name: string,
  options: Semaphore.SemaphoreOptions
): Effect.Effect<Permits.Permits, unknown, Scope.Scope> => keep(store, Semaphore.acquire(name, options))
