/**
 * Node programs for tests, demos and benchmarks: a TypeScript entry point bundled into one ESM file that plain `node`
 * starts quickly. Under `node --import tsx`, each process spends seconds of CPU loading hundreds of modules through
 * loader hooks; several worker processes started together on two cores would spend most of a test run doing that.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/**
 * @since 0.1.0
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
 * Bundles `entry` (resolved from `workingDirectory`) and everything it imports into `outfile`, for Node 20.
 *
 * @since 0.1.0
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
}): Effect.Effect<string, BundleError> =>
  Effect.tryPromise({
    try: async () => {
      const esbuild = await import("esbuild")
      await esbuild.build({
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
