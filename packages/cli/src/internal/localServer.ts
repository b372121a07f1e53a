/**
 * The embedded server of `--local`: dynalite, in memory, on a free loopback port for the life of a scope. It is
 * loaded on first use (a chunk of its own in the bundle), so that no other start of the CLI pays for it.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Http from "node:http"
import type * as Net from "node:net"

/**
 * dynalite could not start.
 *
 * @internal
 */
export class LocalServerError extends Data.TaggedError("LocalServerError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

// Tables are ACTIVE at once: `--local` should not wait out dynalite's default CREATING state.
const options = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }

const load = Effect.tryPromise({
  try: () => import("dynalite"),
  catch: (cause) => new LocalServerError({ message: `could not load the embedded dynalite: ${String(cause)}`, cause })
})

/**
 * Starts dynalite on 127.0.0.1 and returns its URL; closes it, with every connection, when the scope closes.
 *
 * @internal
 */
export const start: Effect.Effect<string, LocalServerError, Scope.Scope> = Effect.gen(function*() {
  const dynalite = (yield* load).default
  const server = yield* Effect.acquireRelease(
    Effect.async<Http.Server, LocalServerError>((resume) => {
      const server = dynalite(options)
      server.once(
        "error",
        (cause) =>
          resume(Effect.fail(new LocalServerError({ message: `dynalite did not start: ${cause.message}`, cause })))
      )
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        // Without this, the close waits for clients' keep-alive connections to go idle.
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
})
