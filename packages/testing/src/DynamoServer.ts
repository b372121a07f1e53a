/**
 * A DynamoDB-compatible server for tests: dynalite or AWS DynamoDB Local started on a free loopback port for the
 * life of a scope, or any endpoint given by the user (DYNAMODB_ENDPOINT).
 *
 * SKELETON: the interface below is the agreed contract; the implementation is being written.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * @since 0.1.0
 * @category models
 */
export type Engine = "dynalite" | "dynamodb-local" | "endpoint"

/**
 * Plain client settings, accepted as they are by `new DynamoDBClient(config)`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientConfig {
  readonly endpoint: string
  readonly region: string
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly engine: Engine
  /** What clients should connect to (for local engines: a counting, pausable proxy on 127.0.0.1). */
  readonly clientConfig: ClientConfig
  /** Whether requests pass through our proxy, so that `requests`, `pause` and `resume` work. */
  readonly proxied: boolean
  /** Requests seen by the server side so far, by DynamoDB operation (the X-Amz-Target suffix, e.g. "UpdateItem"). */
  readonly requests: Effect.Effect<ReadonlyMap<string, number>>
  readonly resetRequests: Effect.Effect<void>
  /** Stop answering: requests are held (as by a paused server) until `resume`. */
  readonly pause: Effect.Effect<void>
  readonly resume: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class DynamoServer extends Context.Tag("@leasehold/testing/DynamoServer")<DynamoServer, Service>() {}
