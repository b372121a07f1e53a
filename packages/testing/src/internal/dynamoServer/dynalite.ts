/**
 * dynalite, an in-memory DynamoDB written in JavaScript, on a free loopback port for the life of a scope.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Http from "node:http"
import { createRequire } from "node:module"
import type * as Net from "node:net"
import * as EffectLine from "../effectLine.js"
import * as StartError from "./startError.js"

interface Options {
  readonly createTableMs: number
  readonly deleteTableMs: number
  readonly updateTableMs: number
}

// dynalite ships no types; this is the part of its API we use.
type Dynalite = (options: Options) => Http.Server

// Tables become ACTIVE at once: tests should not wait out dynalite's default 500 ms CREATING state.
const options: Options = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }

const load = Effect.try({
  // Loaded on first use, so importing the test kit does not load dynalite's storage engine.
  try: () => createRequire(import.meta.url)("dynalite") as Dynalite,
  catch: (cause) =>
    new StartError.StartError({
      reason: "NotInstalled",
      detail:
        "the npm package \"dynalite\" could not be loaded (is @leasehold/testing installed with its dependencies?)",
      cause
    })
})

/**
 * Starts dynalite on 127.0.0.1 and returns its URL; closes it, with every connection, when the scope closes.
 *
 * @internal
 */
export const start: Effect.Effect<string, StartError.StartError, Scope.Scope> = Effect.gen(function*() {
  const dynalite = yield* load
  const server = yield* Effect.acquireRelease(
    EffectLine.callback<Http.Server, StartError.StartError>((resume) => {
      const server = dynalite(options)
      server.once(
        "error",
        (cause) =>
          resume(
            Effect.fail(new StartError.StartError({ reason: "StartFailed", detail: "dynalite did not start", cause }))
          )
      )
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      EffectLine.callback<void>((resume) => {
        // Without this, dynalite's graceful close waits for clients' keep-alive connections to go idle.
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
})
