/**
 * Small helpers for servers on the loopback interface.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import * as Net from "node:net"
import * as EffectLine from "../effectLine.js"

/**
 * A port that was free a moment ago. Only for servers that must be told a port up front (DynamoDB Local); another
 * process can take it before the server binds, so callers retry with a fresh port when the bind fails.
 *
 * @internal
 */
export const freePort: Effect.Effect<number, Error> = EffectLine.callback<number, Error>((resume) => {
  const server = Net.createServer()
  server.unref()
  server.once("error", (error) => resume(Effect.fail(error)))
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as Net.AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * Succeeds once anything answers HTTP on the port, whatever the status: the server is up when it can say "missing
 * authentication token".
 *
 * @internal
 */
export const answersHttp = (port: number, timeoutMs: number): Effect.Effect<void, Error> =>
  EffectLine.callback<void, Error>((resume) => {
    const request = Http.get({ host: "127.0.0.1", port, path: "/", agent: false, timeout: timeoutMs }, (response) => {
      response.resume()
      resume(Effect.void)
    })
    request.once("timeout", () => request.destroy(new Error(`no answer on port ${port} within ${timeoutMs} ms`)))
    request.once("error", (error) => resume(Effect.fail(error)))
    return Effect.sync(() => request.destroy())
  })
