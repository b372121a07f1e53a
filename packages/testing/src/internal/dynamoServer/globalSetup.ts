/**
 * A server started from a vitest `globalSetup`, outside Effect: started in a scope of its own, which `stop` closes.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type * as DynamoServer from "../../DynamoServer.js"
import * as Dynalite from "./dynalite.js"
import * as DynamoDBLocal from "./dynamoDBLocal.js"
import { dynamoDBLocalAvailability } from "./engines.js"
import { type Failure, failure, NodeCommands } from "./service.js"

type Started = Omit<DynamoServer.GlobalServer, "stop">

/**
 * Starts `engine`, or dynalite instead when DynamoDB Local cannot run here and the options allow it. A dynalite that
 * does not start is a defect: there is nothing else to fall back to.
 *
 * @internal
 */
export const start = <E>(
  engine: "dynalite" | "dynamodb-local",
  options: DynamoServer.GlobalSetupOptions,
  toError: (failure: Failure) => E
): Effect.Effect<Started, E, Scope.Scope> =>
  Effect.gen(function*() {
    if (engine === "dynamodb-local") {
      const availability = yield* dynamoDBLocalAvailability
      if (availability.run) {
        const endpoint = yield* DynamoDBLocal.start(options).pipe(
          Effect.mapError((error) => toError(failure("dynamodb-local")(error))),
          Effect.provide(NodeCommands)
        )
        return { engine: "dynamodb-local" as const, endpoint }
      }
      if (options.whenJavaMissing === "fail") {
        return yield* Effect.fail(toError({ engine, reason: "JavaNotFound", detail: availability.reason }))
      }
      yield* Effect.logWarning(`${availability.reason}; using dynalite instead`)
    }
    const endpoint = yield* Effect.orDie(
      Effect.mapError(Dynalite.start, (error) => toError(failure("dynalite")(error)))
    )
    return { engine: "dynalite" as const, endpoint }
  })

/**
 * Runs `started` in a scope of its own and hands back what it started with a `stop` that closes the scope once;
 * unless `DYNAMODB_ENDPOINT` is already set, in which case nothing is started.
 *
 * @internal
 */
export const run = async (
  started: Effect.Effect<Started, unknown, Scope.Scope>
): Promise<DynamoServer.GlobalServer> => {
  const preset = process.env.DYNAMODB_ENDPOINT
  if (preset !== undefined && preset !== "") {
    return { engine: "endpoint", endpoint: preset, stop: () => Promise.resolve() }
  }
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(Effect.provideService(started, Scope.Scope, scope))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    throw Cause.squash(exit.cause)
  }
  let stopped: Promise<void> | undefined
  return {
    ...exit.value,
    stop: () => (stopped ??= Effect.runPromise(Scope.close(scope, Exit.void)))
  }
}
