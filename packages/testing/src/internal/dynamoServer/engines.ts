/**
 * The servers: dynalite and DynamoDB Local started for the life of a scope, or an endpoint someone else runs; and
 * whether DynamoDB Local can run here.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as DynamoServer from "../../DynamoServer.js"
import * as EffectLine from "../effectLine.js"
import * as Dynalite from "./dynalite.js"
import * as DynamoDBLocal from "./dynamoDBLocal.js"
import {
  defaultRegion,
  type Failure,
  failure,
  localCredentials,
  NodeCommands,
  proxiedService,
  unproxiedService
} from "./service.js"

/** @internal */
export const makeDynalite: Effect.Effect<DynamoServer.Service, Failure, Scope.Scope> = Effect.flatMap(
  Effect.mapError(Dynalite.start, failure("dynalite")),
  (endpoint) => proxiedService("dynalite", endpoint, localCredentials, defaultRegion)
)

/** @internal */
export const makeDynamoDBLocal = (
  options: DynamoServer.DynamoDBLocalOptions
): Effect.Effect<DynamoServer.Service, Failure, Scope.Scope> =>
  DynamoDBLocal.start(options).pipe(
    Effect.mapError(failure("dynamodb-local")),
    Effect.flatMap((endpoint) => proxiedService("dynamodb-local", endpoint, localCredentials, defaultRegion)),
    Effect.provide(NodeCommands)
  )

const isLoopback = (hostname: string) =>
  hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname)

/** @internal */
export const makeEndpoint = (
  url: string,
  options: DynamoServer.EndpointOptions
): Effect.Effect<DynamoServer.Service, Failure, Scope.Scope> =>
  Effect.gen(function*() {
    const parsed = yield* Effect.try({
      try: () => new URL(url),
      catch: (cause): Failure => ({
        engine: "endpoint",
        reason: "InvalidEndpoint",
        detail: `"${url}" is not a URL (expected e.g. http://127.0.0.1:8000)`,
        cause
      })
    })
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return yield* Effect.fail<Failure>({
        engine: "endpoint",
        reason: "InvalidEndpoint",
        detail: `"${url}" must start with http:// or https://`
      })
    }
    const endpoint = parsed.origin
    const region = options.region ?? defaultRegion
    const credentials = options.credentials ?? (isLoopback(parsed.hostname) ? localCredentials : undefined)
    return parsed.protocol === "https:"
      ? unproxiedService(endpoint, credentials, region)
      : yield* proxiedService("endpoint", endpoint, credentials, region)
  })

/** @internal */
export const javaAvailable: Effect.Effect<boolean> = DynamoDBLocal.probeJava.pipe(
  Effect.map((java) => java._tag === "Found" && java.major >= DynamoDBLocal.minimumJava),
  Effect.provide(NodeCommands)
)

/** @internal */
export const dynamoDBLocalAvailability: Effect.Effect<DynamoServer.Availability> = Effect.gen(function*() {
  const java = yield* DynamoDBLocal.probeJava
  const ci = yield* EffectLine.configString("CI").pipe(Config.option, Effect.orElseSucceed(() => Option.none()))
  const installed = yield* DynamoDBLocal.installed
  return DynamoDBLocal.availabilityOf(java, Option.getOrUndefined(ci) === "true", installed)
}).pipe(Effect.provide(NodeCommands))
