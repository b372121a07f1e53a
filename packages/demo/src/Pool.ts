/**
 * Starting and driving the worker processes with `@effect/platform`'s `Command`: one OS process per worker, its JSON
 * lines read from stdout, commands written to stdin, signals sent by pid. Every child is SIGKILLed when the scope
 * closes, whatever the outcome (SIGCONT first, in case it was stopped).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { fileURLToPath } from "node:url"
import * as Protocol from "./Protocol.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Worker {
  readonly id: number
  readonly pid: number
  readonly send: (command: Protocol.WorkerCommand) => Effect.Effect<void>
  /** Sends a signal to the process (not its group: the worker is one process). */
  readonly signal: (signal: NodeJS.Signals) => Effect.Effect<void>
  /** Its exit code; a signal death is a failure. */
  readonly exitCode: Effect.Effect<number, unknown>
  /** The tail of what it wrote to stderr. */
  readonly stderr: Effect.Effect<string>
}

const workerSource = fileURLToPath(new URL("./Worker.ts", import.meta.url))
const packageDirectory = fileURLToPath(new URL("..", import.meta.url))

/**
 * How to start a worker: the worker bundled into one file with esbuild (which tsx ships with), because under
 * `node --import tsx` each process spends seconds of CPU loading hundreds of modules through the loader hooks; or,
 * if bundling fails, `node --import tsx Worker.ts`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const workerCommand: Effect.Effect<
  ReadonlyArray<string>,
  never,
  FileSystem.FileSystem | Scope.Scope
> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const bundled = yield* Effect.gen(function*() {
    const directory = yield* fs.makeTempDirectoryScoped({ prefix: "leasehold-demo-" })
    const outfile = `${directory}/worker.mjs`
    yield* NodeProgram.bundle({
      entry: workerSource,
      outfile,
      workingDirectory: packageDirectory,
      conditions: ["@leasehold/source"]
    })
    return [outfile]
  }).pipe(Effect.option)
  return Option.getOrElse(bundled, () => ["--conditions=@leasehold/source", "--import", "tsx", workerSource])
})

/**
 * Starts one worker; its reports go to `onEvent`, lines that are not reports to its stderr tail.
 *
 * @since 0.1.0
 * @category constructors
 */
export const spawn = (
  args: ReadonlyArray<string>,
  settings: Protocol.WorkerSettings,
  onEvent: (event: Protocol.WorkerEvent) => Effect.Effect<void>
): Effect.Effect<Worker, unknown, CommandExecutor.CommandExecutor | Scope.Scope> =>
  Effect.gen(function*() {
    const command = Command.make(process.execPath, ...args).pipe(
      Command.workingDirectory(packageDirectory),
      Command.env({ [Protocol.settingsVariable]: Protocol.encodeSettings(settings) })
    )
    const child = yield* Command.start(command)
    const pid = Number(child.pid)
    const signal = (name: NodeJS.Signals) =>
      Effect.sync(() => {
        try {
          process.kill(pid, name)
        } catch {
          // already gone
        }
      })
    // Added after the start, so it runs before the executor's own finalizer (a polite SIGTERM and a wait).
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(child.isRunning, (running) =>
        running ? Effect.zipRight(signal("SIGCONT"), signal("SIGKILL")) : Effect.void).pipe(Effect.ignore)
    )
    const stderr = yield* Ref.make("")
    const keepTail = (text: string) =>
      Ref.update(stderr, (all) => (all + text).slice(-4000))
    yield* child.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        Option.match(Protocol.decodeEvent(line), { onNone: () => keepTail(`${line}\n`), onSome: onEvent })
      ),
      Effect.ignore,
      Effect.forkScoped
    )
    yield* child.stderr.pipe(Stream.decodeText(), Stream.runForEach(keepTail), Effect.ignore, Effect.forkScoped)
    // stdin stays open for the worker's life: it exits when it closes.
    const input = yield* Queue.unbounded<string>()
    yield* Stream.fromQueue(input).pipe(
      Stream.map((line) => new TextEncoder().encode(`${line}\n`)),
      Stream.run(child.stdin),
      Effect.ignore,
      Effect.forkScoped
    )
    return {
      id: settings.worker,
      pid,
      send: (line) => Effect.asVoid(Queue.offer(input, line)),
      signal,
      exitCode: Effect.map(child.exitCode, Number),
      stderr: Ref.get(stderr)
    }
  })
