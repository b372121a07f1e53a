/**
 * The child's side of a Node program run by a parent process: its settings from the environment, the parent's lines
 * on stdin (whose end means the parent is gone), and its exit.
 *
 * @internal
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/** @internal */
export const readSettings = <A, I>(variable: string, schema: Schema.Codec<A, I>): Effect.Effect<A> =>
  Config.String(variable).pipe(
    Effect.flatMap((json) => Schema.decodeUnknownEffect(Schema.fromJsonString(schema))(json)),
    Effect.orDie
  )

/** @internal */
export const watchStdin = (
  onLine: (line: string) => Effect.Effect<unknown>
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runSync = Effect.runSyncWith(yield* Effect.context<never>())
    const closed = yield* Deferred.make<void>()
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        let buffered = ""
        const onData = (chunk: Buffer) => {
          buffered += chunk.toString("utf8")
          let newline = buffered.indexOf("\n")
          while (newline >= 0) {
            const line = buffered.slice(0, newline).trim()
            buffered = buffered.slice(newline + 1)
            runSync(onLine(line))
            newline = buffered.indexOf("\n")
          }
        }
        const onEnd = () => Deferred.doneUnsafe(closed, Exit.void)
        // The data listener stays attached until the scope closes: a flowing stream is one whose end is seen.
        process.stdin.on("data", onData)
        process.stdin.once("end", onEnd)
        process.stdin.once("close", onEnd)
        return { onData, onEnd }
      }),
      ({ onData, onEnd }) =>
        Effect.sync(() => {
          process.stdin.off("data", onData)
          process.stdin.off("end", onEnd)
          process.stdin.off("close", onEnd)
          process.stdin.pause()
        })
    )
    return Deferred.await(closed)
  })

/** @internal */
export const runMain = <A, E>(program: Effect.Effect<A, E>): void =>
  NodeRuntime.runMain(
    // stdout carries what the child reports; logs (and the report of a failure, made here rather than by runMain so
    // that it goes through the same logger) go to stderr.
    program.pipe(
      Effect.tapCause((cause) => Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(cause)),
      Effect.provide(Logger.layer([Logger.withConsoleError(Logger.formatLogFmt)]))
    ),
    {
      disableErrorReporting: true,
      // stdin keeps the event loop alive; exit explicitly once the program is over (stdout on a pipe is synchronous).
      teardown: (exit, onExit) => {
        const code = Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : 0
        onExit(code)
        process.exit(code)
      }
    }
  )
