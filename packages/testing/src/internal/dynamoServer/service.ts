/**
 * The `DynamoServer` service over a server endpoint: through the counting, pausable proxy, or (for `https:`
 * endpoints) directly, with every proxy feature dying with a message. Also the failures the internals report, which
 * the public module turns into `DynamoServerError`.
 *
 * @internal
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as DynamoServer from "../../DynamoServer.js"
import * as EffectLine from "../effectLine.js"
import * as Proxy from "./proxy.js"
import type * as StartError from "./startError.js"

/**
 * The fields of a `DynamoServerError`: why a server could not be started or reached.
 *
 * @internal
 */
export interface Failure {
  readonly engine: DynamoServer.Engine
  readonly reason: StartError.Reason
  readonly detail: string
  readonly cause?: unknown
}

/** @internal */
export const failure = (engine: DynamoServer.Engine) => (error: StartError.StartError): Failure => ({
  engine,
  reason: error.reason,
  detail: error.detail,
  ...(error.cause === undefined ? {} : { cause: error.cause })
})

/** @internal */
export const defaultRegion = "us-east-1"

/** @internal */
export const localCredentials = { accessKeyId: "leasehold", secretAccessKey: "leasehold" } as const

/**
 * Child processes spawned on Node; the layers need nothing from the caller.
 *
 * @internal
 */
export const NodeCommands = EffectLine.layerNodeSpawner.pipe(
  Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
)

/** @internal */
export const proxiedService = (
  engine: DynamoServer.Engine,
  serverEndpoint: string,
  credentials: DynamoServer.ClientConfig["credentials"],
  region: string
): Effect.Effect<DynamoServer.Service, Failure, Scope.Scope> =>
  Effect.map(
    Effect.mapError(Proxy.make(new URL(serverEndpoint)), failure(engine)),
    (proxy): DynamoServer.Service => ({
      engine,
      clientConfig: { endpoint: proxy.url, region, ...(credentials === undefined ? {} : { credentials }) },
      serverEndpoint,
      proxied: true,
      requests: proxy.requests,
      resetRequests: proxy.resetRequests,
      pause: proxy.pause("hold"),
      pauseWith: proxy.pause,
      resume: proxy.resume,
      deliverLate: proxy.deliverLate,
      pending: proxy.pending,
      awaitPending: proxy.awaitPending
    })
  )

const unproxied = (endpoint: string) => (operation: string) =>
  EffectLine.dieMessage(
    `DynamoServer.${operation}: requests to ${endpoint} do not pass through the test proxy (https endpoint); ` +
      `check "proxied" before counting or pausing`
  )

/** @internal */
export const unproxiedService = (
  endpoint: string,
  credentials: DynamoServer.ClientConfig["credentials"],
  region: string
): DynamoServer.Service => {
  const unsupported = unproxied(endpoint)
  return {
    engine: "endpoint",
    clientConfig: { endpoint, region, ...(credentials === undefined ? {} : { credentials }) },
    serverEndpoint: endpoint,
    proxied: false,
    requests: unsupported("requests"),
    resetRequests: unsupported("resetRequests"),
    pause: unsupported("pause"),
    pauseWith: () => unsupported("pauseWith"),
    resume: unsupported("resume"),
    deliverLate: unsupported("deliverLate"),
    pending: unsupported("pending"),
    awaitPending: () => unsupported("awaitPending")
  }
}
