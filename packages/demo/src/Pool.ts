/**
 * Starting and driving the worker processes with `@effect/platform`'s `Command`: one OS process per worker, its JSON
 * lines read from stdout, commands written to stdin, signals sent by pid. Every child is SIGKILLed when the scope
 * closes, whatever the outcome (SIGCONT first, in case it was stopped).
 *
 * The workers run the chosen Effect line: this package's `Worker.ts` on Effect 3, or its copy in the Effect 4 project
 * (`effect4/packages/demo`, assembled by `scripts/effect4Sources.ts`), whose imports resolve effect 4 and that line's
 * packages, under Node 22 or later. The parent is the same for both lines.
 *
 * @since 1.0.0
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import type * as Options from "./Options.js"
import * as Protocol from "./Protocol.js"

/**
 * @since 1.0.0
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

const repository = new URL("../../../", import.meta.url)
const effect4Project = new URL("effect4/", repository)

/** Where a line's worker is: its package folder, from which its imports resolve. */
const packageDirectory = (line: Options.Line): string =>
  fileURLToPath(line === "3" ? new URL("..", import.meta.url) : new URL("packages/demo/", effect4Project))

/** The Node that runs the Effect 4 line's workers where the current one is older than 22. */
const effect4Node = fileURLToPath(new URL("node_modules/node22/bin/node", effect4Project))

/**
 * The Effect 4 line's workers can not run here: the Effect 4 project is not installed, or there is no Node 22.
 *
 * @since 1.0.0
 * @category errors
 */
export class LineUnavailable extends Data.TaggedError("LineUnavailable")<{ readonly reason: string }> {
  override get message(): string {
    return `the Effect 4 line's workers can not run: ${this.reason}`
  }
}

/**
 * How to start a worker of a line: which Node, with which arguments, from which folder.
 *
 * @since 1.0.0
 * @category models
 */
export interface WorkerProgram {
  readonly node: string
  readonly args: ReadonlyArray<string>
  readonly directory: string
  /** Bundled with esbuild, or run through tsx's loader. */
  readonly bundled: boolean
}

/** The Node for `line`'s workers: this one, or for Effect 4 under a Node older than 22, the Effect 4 project's. */
const nodeFor = (line: Options.Line): Effect.Effect<string, LineUnavailable> => {
  if (line === "3" || Number(process.versions.node.split(".")[0]) >= 22) return Effect.succeed(process.execPath)
  return existsSync(effect4Node) ? Effect.succeed(effect4Node) : Effect.fail(
    new LineUnavailable({
      reason: `it needs Node >= 22, and this is ${process.version}; run the demo under Node 22 or 24, or run ` +
        "`npm ci` on linux-x64, which installs Node 22 into effect4/node_modules"
    })
  )
}

/**
 * Brings the Effect 4 line's copies of the workers up to date with their one source, with the repository's script,
 * as its tests do before they run.
 */
const assembleEffect4 = Effect.suspend(() =>
  existsSync(fileURLToPath(new URL("node_modules/effect", effect4Project)))
    ? Effect.try({
      try: () => {
        execFileSync(process.execPath, ["--import", "tsx", "scripts/effect4Sources.ts"], {
          cwd: fileURLToPath(repository),
          stdio: ["ignore", "ignore", "inherit"]
        })
      },
      catch: (error) => new LineUnavailable({ reason: `scripts/effect4Sources.ts failed: ${String(error)}` })
    })
    : Effect.fail(
      new LineUnavailable({ reason: "effect4/node_modules is missing: run `npm ci` at the repository's root" })
    )
)

/**
 * How to start a worker of `line`: the worker bundled into one file with esbuild (which tsx ships with), because under
 * `node --import tsx` each process spends seconds of CPU loading hundreds of modules through the loader hooks; or,
 * if bundling fails, `node --import tsx Worker.ts`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const workerProgram = (
  line: Options.Line
): Effect.Effect<WorkerProgram, LineUnavailable, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const node = yield* nodeFor(line)
    if (line === "4") yield* assembleEffect4
    const directory = packageDirectory(line)
    const workerSource = `${directory}src/Worker.ts`
    const fs = yield* FileSystem.FileSystem
    const bundled = yield* Effect.gen(function*() {
      const temporary = yield* fs.makeTempDirectoryScoped({ prefix: "leasehold-demo-" })
      const outfile = `${temporary}/worker.mjs`
      yield* NodeProgram.bundle({
        entry: workerSource,
        outfile,
        workingDirectory: directory,
        conditions: ["@leasehold/source"]
      })
      return outfile
    }).pipe(Effect.option)
    // tsx by URL: the Effect 4 project, where that line's worker starts, does not have it.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
    return Option.match(bundled, {
      onSome: (outfile): WorkerProgram => ({ node, args: [outfile], directory, bundled: true }),
      onNone: (): WorkerProgram => ({
        node,
        args: ["--conditions=@leasehold/source", "--import", tsx, workerSource],
        directory,
        bundled: false
      })
    })
  })

/**
 * Starts one worker; its reports go to `onEvent`, lines that are not reports to its stderr tail.
 *
 * @since 1.0.0
 * @category constructors
 */
export const spawn = (
  worker: WorkerProgram,
  settings: Protocol.WorkerSettings,
  onEvent: (event: Protocol.WorkerEvent) => Effect.Effect<void>
): Effect.Effect<Worker, unknown, CommandExecutor.CommandExecutor | Scope.Scope> =>
  Effect.gen(function*() {
    const command = Command.make(worker.node, ...worker.args).pipe(
      Command.workingDirectory(worker.directory),
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
