/**
 * Node programs for tests, demos and benchmarks: a TypeScript entry point bundled into one ESM file that plain `node`
 * starts quickly. Under `node --import tsx`, each process spends seconds of CPU loading hundreds of modules through
 * loader hooks; several worker processes started together on two cores would spend most of a test run doing that.
 *
 * Inside such a program, run as a child of a test or a demo: its settings, passed as one JSON environment variable;
 * the parent's commands, lines on its stdin, whose end means the parent is gone, so that a dead parent leaves no
 * orphans; and its exit.
 *
 * @since 1.0.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { Plugin } from "esbuild"
import * as Path from "node:path"
import * as EffectLine from "./internal/effectLine.js"
import type { Codec } from "./internal/effectLine.js"
import * as internal from "./internal/nodeProgram/child.js"

/**
 * @since 1.0.0
 * @category errors
 */
export class BundleError extends Data.TaggedError("BundleError")<{
  readonly entry: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `could not bundle ${this.entry} with esbuild: ${String(this.cause)}`
  }
}

/**
 * Files of `folder` (not of a `node_modules` in it) take their bare imports from `directory`. The resolution it asks
 * for has no importer, so it comes back to this hook as nobody's and goes on as usual.
 */
const resolveBareImportsFrom = (folder: string, directory: string): Plugin => ({
  name: "resolve-bare-imports-from",
  setup: (build) => {
    build.onResolve({ filter: /^[^./]/ }, async ({ importer, kind, path }) => {
      if (!importer.startsWith(folder + Path.sep) || importer.includes(`${Path.sep}node_modules${Path.sep}`)) return
      const resolved = await build.resolve(path, { kind, resolveDir: directory })
      if (resolved.errors.length > 0) return { errors: resolved.errors }
      return { path: resolved.path, external: resolved.external, sideEffects: resolved.sideEffects }
    })
  }
})

/**
 * Bundles `entry` (resolved from `workingDirectory`) and everything it imports into `outfile`, for Node 20.
 *
 * @since 1.0.0
 * @category constructors
 */
export const bundle = (options: {
  readonly entry: string
  readonly outfile: string
  readonly workingDirectory: string
  /**
   * Extra package export conditions to resolve with, e.g. a workspace's condition that points packages at their
   * TypeScript sources. Default: none, so installed packages resolve to their compiled files.
   */
  readonly conditions?: ReadonlyArray<string> | undefined
  /**
   * Bare imports (`effect`, `@leasehold/lock`) of the files in `entry`'s folder resolve from this directory instead of
   * from beside them: a program written once for both Effect lines (such as the repository's examples) is bundled
   * with the line whose packages are installed there. Default: beside each file, as Node resolves them.
   */
  readonly resolveFrom?: string | undefined
}): Effect.Effect<string, BundleError> =>
  Effect.tryPromise({
    try: async () => {
      const esbuild = await import("esbuild")
      await esbuild.build({
        ...(options.resolveFrom === undefined ? {} : {
          plugins: [resolveBareImportsFrom(
            Path.dirname(Path.resolve(options.workingDirectory, options.entry)),
            options.resolveFrom
          )]
        }),
        entryPoints: [options.entry],
        absWorkingDir: options.workingDirectory,
        outfile: options.outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        ...(options.conditions === undefined ? {} : { conditions: [...options.conditions] }),
        // The AWS SDK is CommonJS and requires Node's built-ins; an ESM bundle needs a `require` for that. The name
        // is unusual so that it cannot clash with a `createRequire` the sources import themselves.
        banner: {
          js: "import { createRequire as __leaseholdCreateRequire } from \"node:module\"; " +
            "const require = __leaseholdCreateRequire(import.meta.url);"
        },
        logLevel: "warning"
      })
      return options.outfile
    },
    catch: (cause) => new BundleError({ entry: options.entry, cause })
  })

/**
 * The settings every lock worker takes: a child process that contends for one lock on a DynamoDB table with its
 * siblings, running a section that reads shared state, pauses, and writes it back. A program extends it with its
 * own fields (`Schema.Struct({ ...LockWorkerSettings.fields, ... })`).
 *
 * @since 1.0.0
 * @category models
 */
export const LockWorkerSettings = Schema.Struct({
  /** The worker's number among its siblings. */
  worker: Schema.Int,
  /** Plain `DynamoDBClient` settings; no credentials means the SDK's default chain (a real AWS endpoint). */
  clientConfig: Schema.Struct({
    endpoint: Schema.String,
    region: Schema.String,
    credentials: EffectLine.optionalKey(Schema.Struct({ accessKeyId: Schema.String, secretAccessKey: Schema.String }))
  }),
  tableName: Schema.String,
  lockName: Schema.String,
  leaseMs: Schema.Int,
  maxClockSkewMs: Schema.Int,
  /** The pause between reading the shared state and writing it back: the window in which an unguarded section races. */
  holdMs: Schema.Int,
  /** false for the control run: the same sections without the lock, to show what the lock prevents. */
  useLock: Schema.Boolean
})

/**
 * @since 1.0.0
 * @category models
 */
export type LockWorkerSettings = typeof LockWorkerSettings.Type

/**
 * A child program's settings: the JSON in the environment variable `variable`, decoded with `schema`. Dies when it is
 * missing or does not decode: a child started wrongly has no one to report to but its stderr.
 *
 * @since 1.0.0
 * @category child process
 */
export const readSettings: <A, I>(variable: string, schema: Codec<A, I>) => Effect.Effect<A> = internal.readSettings

/**
 * Watches this process's stdin, where the parent writes its commands: calls `onLine` with each line (trimmed), and
 * returns an effect that completes once stdin ends, that is once the parent is gone or has let the child go. The
 * watch ends with the scope.
 *
 * @since 1.0.0
 * @category child process
 */
export const watchStdin: (
  onLine: (line: string) => Effect.Effect<unknown>
) => Effect.Effect<Effect.Effect<void>, never, Scope.Scope> = internal.watchStdin

/**
 * Runs a child program with `NodeRuntime.runMain`, its logs on stderr (stdout is for what it reports to the parent),
 * and exits the process once the program is over (stdin would keep it alive): with 1 on a failure, 0 otherwise.
 *
 * @since 1.0.0
 * @category child process
 */
export const runMain: <A, E>(program: Effect.Effect<A, E>) => void = internal.runMain
