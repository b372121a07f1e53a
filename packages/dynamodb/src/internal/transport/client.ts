/**
 * The DynamoDB client of a store: the user's own, or one we build and destroy with the scope.
 *
 * @internal
 */
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb"
import * as Failure from "@leasehold/core/dynamodb/Failure"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** @internal */
export interface ClientOptions {
  readonly client?: DynamoDBClient | undefined
  readonly clientConfig?: DynamoDBClientConfig | undefined
}

/**
 * The user's client as it is (they own it: we never destroy it or touch its middleware), or a new one from
 * `clientConfig`, destroyed when the scope closes. Clients we build make one attempt per `send`: the store retries
 * with its own bounded, jittered schedule, and two retry layers would multiply each other's attempts. An explicit
 * `maxAttempts` in `clientConfig` still wins.
 *
 * @internal
 */
export const acquire = (options: ClientOptions): Effect.Effect<DynamoDBClient, never, Scope.Scope> =>
  options.client !== undefined
    ? Effect.succeed(options.client)
    : Effect.acquireRelease(
      Effect.sync(() => new DynamoDBClient({ maxAttempts: 1, ...options.clientConfig })),
      (client) => Effect.sync(() => client.destroy())
    )

/**
 * Where a client sends its requests, for error messages ("http://127.0.0.1:8000", "region eu-west-1"), as the core's
 * `Failure.describeLocation` reads its config. Resolved only when an error needs it: the config providers are async
 * and may themselves fail.
 *
 * @internal
 */
export const describeLocation = (client: DynamoDBClient): Effect.Effect<string> =>
  Effect.promise(() => Failure.describeLocation(client.config))
