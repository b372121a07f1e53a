/**
 * The child's side of a Node program run by a parent process: its settings from the environment, the parent's lines
 * on stdin (whose end means the parent is gone), and its exit.
 *
 * @internal
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import * as EffectLine from "../effectLine.js"

/** @internal */
export const readSettings = <A, I>(variable: string, schema: EffectLine.Codec<A, I>): Effect.Effect<A> =>
  EffectLine.configString(variable).pipe(Effect.flatMap(EffectLine.decodeJson(schema)), Effect.orDie)

/** @internal */
export const watchStdin = (
  onLine: (line: string) => Effect.Effect<unknown>
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runSync = yield* EffectLine.syncRunner
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
        const onEnd = () => runSync(Deferred.done(closed, Exit.void))
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
    // stdout carries what the child reports; logs, and the report of a failure, go to stderr.
    EffectLine.logToStderr(program),
    {
      disableErrorReporting: !EffectLine.runMainReportsFailure,
      // stdin keeps the event loop alive; exit explicitly once the program is over (stdout on a pipe is synchronous).
      teardown: (exit, onExit) => {
        const code = Exit.isFailure(exit) && !EffectLine.hasInterruptsOnly(exit.cause) ? 1 : 0
        onExit(code)
        process.exit(code)
      }
    }
  )
