/**
 * The DynamoDB `LockStore`: every operation is one conditional `UpdateItem` (or one consistent read), with fencing
 * tokens incremented in the same write, conflicts answered with the current holder, and no read before a write.
 *
 * Table layout (see `DynamoLockTable.createTable`): one item per lock name, keyed `{ key: "prefix#name" }` (the prefix
 * with `\` and `#` escaped by a backslash; without a prefix, the escaped name alone), or, with a `sortKey`,
 * `{ key: family, [sortKey]: name }` so that a family of locks is one partition and listing is a Query.
 * Attributes: `owner` (S), `holder` (S), `leaseUntil` (N, epoch ms), `leaseMs` (N), `fence` (N), `acquiredAt` (N,
 * epoch ms), `data` (S, optional) and `ttl` (N, epoch seconds, for DynamoDB TTL cleanup of idle rows).
 *
 * Costs: an uncontended acquire + release is two `UpdateItem`s and no reads. A conflict returns the holder from the
 * failed write itself (`ReturnValuesOnConditionCheckFailure`), or, on servers without it (dynalite), from one
 * consistent `GetItem`. `list` pages are consistent reads: in sort-key mode one `Query` per page, in name order; in
 * partition-key-only mode a paginated `Scan` in the table's hash order, resumed from an opaque cursor, that examines
 * only as many items as it takes to fill the page (one `Scan` of `limit` items when every item matches; more, smaller
 * ones when matches are sparse), so walking every page examines each item of the table once.
 *
 * @since 1.0.0
 */
import type { DynamoDBClient, DynamoDBClientConfig } from "@aws-sdk/client-dynamodb"
import * as KeySchema from "@leasehold/core/dynamodb/KeySchema"
import * as StoreOptions from "@leasehold/core/dynamodb/StoreOptions"
import type { LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as DynamoLockTable from "./DynamoLockTable.js"
import * as EffectLine from "./internal/effectLine.js"
import type { ConfigError, DurationInput } from "./internal/effectLine.js"
import * as Store from "./internal/store/store.js"
import * as Validate from "./internal/table/validate.js"
import * as ClientInternal from "./internal/transport/client.js"
import * as ClockSkew from "./internal/transport/clockSkew.js"
import * as Transport from "./internal/transport/transport.js"

/**
 * The partition key attribute: short and schema-neutral.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultPartitionKey = StoreOptions.defaultPartitionKey

/**
 * In sort-key mode without a `prefix`, the partition every lock name lives in: one family per table by default.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultFamily = StoreOptions.defaultFamily

/**
 * The longest one request may take: a DynamoDB write takes milliseconds, so a request this slow is stuck, and the
 * heartbeat needs the rest of the lease to retry.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultRequestTimeout: DurationInput = "3 seconds"

/**
 * Retries of a throttled or failed request inside the store: enough to ride out a throttling burst or a dropped
 * connection; longer outages are the caller's business (the heartbeat retries until its deadline).
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultMaxRetries = 3

/**
 * The first backoff, doubled (with jitter) per retry: about 50 + 100 + 200 ms over the default three retries.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultRetryBaseDelay: DurationInput = "50 millis"

/**
 * How long an idle row outlives its last lease before DynamoDB TTL may delete it: long enough that a fence restarted
 * from the clock after deletion is far above every earlier token, short enough that abandoned names go away.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultTtlRetention: DurationInput = "7 days"

/**
 * The clock-skew guard is on by default: an absolute-mode takeover trusts clocks, so the store checks its own.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultClockSkewGuard = true

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly tableName: string
  /** A client the caller owns: used as it is (its retries, its middleware) and never destroyed by the store. */
  readonly client?: DynamoDBClient | undefined
  /**
   * Settings for a client the store builds (when `client` is not given) and destroys when its scope closes. Unless
   * given here, `maxAttempts` is 1: the store retries on its own schedule.
   */
  readonly clientConfig?: DynamoDBClientConfig | undefined
  /** The partition key attribute (default `defaultPartitionKey`). */
  readonly partitionKey?: string | undefined
  /** A sort key attribute: lock names go there, and the partition key holds the family (`prefix`). */
  readonly sortKey?: string | undefined
  /**
   * Lets several lock families share a table, each seeing only its own locks. Without `sortKey`: the partition key is
   * the prefix (with `\` and `#` escaped by a backslash), `#`, and the name; without a prefix (the default), the name
   * with `\` and `#` escaped. With `sortKey`: the partition key value of the family (default `defaultFamily`).
   */
  readonly prefix?: string | undefined
  /** The longest a single request may take (default `defaultRequestTimeout`). */
  readonly requestTimeout?: DurationInput | undefined
  /**
   * Retries of throttled, 5xx, network and timed-out requests (default `defaultMaxRetries`). An acquire's write that
   * may have been applied (timed out, connection dropped, a 5xx) is not retried here but reported
   * (`LockStoreError.mayHaveApplied`): the acquire retries within its `wait`, knowing the write may still land.
   */
  readonly maxRetries?: number | undefined
  /** The first retry's backoff, doubled with jitter per retry (default `defaultRetryBaseDelay`). */
  readonly retryBaseDelay?: DurationInput | undefined
  /** How far past `leaseUntil` the `ttl` attribute lies (default `defaultTtlRetention`). */
  readonly ttlRetention?: DurationInput | undefined
  /**
   * Watch this process's clock against DynamoDB's (the HTTP `Date` header) and refuse absolute-mode takeovers of
   * expired leases (and removals of a semaphore's expired holders) while the provable skew exceeds half of
   * `maxClockSkew`; after a wall-clock step, measure again before any (default `defaultClockSkewGuard`).
   * Observed-mode takeovers trust no clock and are never refused.
   *
   * The clock checked is the one each call runs with; DynamoDB's time is read on the clock the store is built with.
   * A store built under a `TestClock` (inside a test) reads it on that clock, so moving the `TestClock` is time
   * passing, not skew, and a fiber whose clock is set apart from it (`Simulation.withClockOffset`) is skewed by that:
   * tests need not turn the guard off. Turn it off only where DynamoDB's clock is no reference for the clocks that
   * share the locks (an emulator on another host, whose clock nobody keeps), or for takeover tests with a zero skew
   * bound against a remote server, which allow no provable skew at all.
   */
  readonly clockSkewGuard?: boolean | undefined
}

const resolve = (options: Options): StoreOptions.Resolved | LockConfigError => {
  const notRecord = Validate.optionsRecord(options)
  if (notRecord !== undefined) return notRecord
  const resolved = StoreOptions.resolve({
    tableName: options.tableName,
    partitionKey: options.partitionKey,
    sortKey: options.sortKey,
    prefix: options.prefix,
    clockSkewGuard: options.clockSkewGuard,
    maxRetries: options.maxRetries ?? defaultMaxRetries,
    requestTimeout: Validate.durationOption(options.requestTimeout ?? defaultRequestTimeout),
    retryBaseDelay: Validate.durationOption(options.retryBaseDelay ?? defaultRetryBaseDelay),
    ttlRetention: Validate.durationOption(options.ttlRetention ?? defaultTtlRetention)
  }, Validate.describe)
  return resolved._tag === "Resolved" ? resolved : Validate.fromProblem(resolved)
}

/**
 * Builds the store. Invalid options fail with a `LockConfigError` that names the option, before any client is built
 * or request sent. The client is built here unless given, and destroyed with the scope. When the scope closes, the
 * store's requests still in flight are abandoned and later calls fail at once (a `LockStoreError`, not retryable):
 * tidying up that a finished program left behind does not keep its process alive.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LockStore.LockStore, LockConfigError, Scope.Scope> =>
  Effect.gen(function*() {
    const resolved = resolve(options)
    if (resolved._tag !== "Resolved") return yield* Effect.fail(resolved)
    const client = yield* ClientInternal.acquire(options)
    // Ends before the client: the requests in flight are abandoned before a client the store built is destroyed.
    const lifetime = yield* Transport.makeLifetime
    // The clock the store is built with: a TestClock's time is the test's, and DynamoDB's is read on it.
    const skew = (options.clockSkewGuard ?? defaultClockSkewGuard)
      ? ClockSkew.makeMonitor(yield* Effect.clockWith(Effect.succeed))
      : undefined
    return Store.make({
      transport: {
        client,
        tableName: options.tableName,
        expectedKeySchema: KeySchema.describeExpected(resolved.expected),
        requestTimeoutMs: resolved.requestTimeoutMs,
        maxRetries: resolved.maxRetries,
        retryBaseDelayMs: resolved.retryBaseDelayMs,
        skew,
        lifetime
      },
      layout: resolved.layout,
      tableName: options.tableName,
      ttlRetentionMs: resolved.ttlRetentionMs,
      skew
    })
  })

/**
 * The store as a layer; invalid options fail its construction with a `LockConfigError`. A client built from
 * `clientConfig` lives as long as the layer; a given `client` is the caller's and outlives it.
 *
 * @example
 * ```ts
 * import { DynamoLockStore } from "@leasehold/dynamodb"
 * import { Lock } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * // The table must exist: create it once with `DynamoLockStore.createTable` or `leasehold table create --table locks`.
 * const LockStoreLive = DynamoLockStore.layer({
 *   tableName: "locks",
 *   clientConfig: { region: "eu-west-1" },
 *   // Several services can share the table, each seeing only its own locks.
 *   prefix: "billing"
 * })
 *
 * const closeBooks = Effect.log("closing the books")
 *
 * // Requires nothing more: the store's client is built with the layer and destroyed with it.
 * const main = closeBooks.pipe(Lock.withLock("close-books", { wait: "1 minute" }), Effect.provide(LockStoreLive))
 * ```
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
 * import { DynamoLockStore } from "@leasehold/dynamodb"
 *
 * // A client of the application's own, shared with its other DynamoDB calls: the layer never destroys it.
 * const client = new DynamoDBClient({ region: "eu-west-1" })
 * const LockStoreLive = DynamoLockStore.layer({ tableName: "locks", client })
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LockStore.LockStore, LockConfigError> =>
  EffectLine.layerScoped(LockStore.LockStore, make(options))

/**
 * Store options that `layerConfig` does not read from configuration.
 *
 * @since 1.0.0
 * @category models
 */
export type ConfigOptions = Omit<Options, "tableName" | "client">

/**
 * The store as a layer configured from Effect `Config` (environment variables by default):
 *
 * - `LEASEHOLD_TABLE` (required): the table name.
 * - `LEASEHOLD_PREFIX` (optional): the `prefix` option, overriding `options.prefix`.
 * - `AWS_REGION` (optional): the region; otherwise the SDK's default chain (profile, instance metadata) decides.
 * - `DYNAMODB_ENDPOINT` (optional): a URL for DynamoDB Local, dynalite or a VPC endpoint.
 *
 * Credentials come from the SDK's default provider chain (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, roles). Other
 * settings are given in code as `options`; `options.clientConfig` is the base the values above are added to.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = (
  options: ConfigOptions = {}
): Layer.Layer<LockStore.LockStore, ConfigError | LockConfigError> =>
  EffectLine.layerUnwrap(
    Effect.gen(function*() {
      const notRecord = Validate.optionsRecord(options, "optional")
      if (notRecord !== undefined) return yield* Effect.fail(notRecord)
      const config = yield* Config.all({
        tableName: EffectLine.configString("LEASEHOLD_TABLE"),
        prefix: Config.option(EffectLine.configString("LEASEHOLD_PREFIX")),
        region: Config.option(EffectLine.configNonEmptyString("AWS_REGION")),
        endpoint: Config.option(EffectLine.configUrl("DYNAMODB_ENDPOINT"))
      })
      return layer({
        ...options,
        tableName: config.tableName,
        prefix: Option.getOrElse(config.prefix, () => options.prefix),
        clientConfig: {
          ...options.clientConfig,
          ...Option.match(config.region, { onNone: () => ({}), onSome: (region) => ({ region }) }),
          ...Option.match(config.endpoint, { onNone: () => ({}), onSome: (url) => ({ endpoint: url.href }) })
        }
      })
    })
  )

/**
 * Creates the lock table; see `DynamoLockTable.createTable`.
 *
 * @since 1.0.0
 * @category table
 */
export const createTable: (
  options: DynamoLockTable.CreateTableOptions
) => Effect.Effect<DynamoLockTable.CreateTableResult, LockStoreError | LockConfigError> = DynamoLockTable.createTable

/**
 * Lists what is wrong with a lock table; see `DynamoLockTable.checkTable`.
 *
 * @since 1.0.0
 * @category table
 */
export const checkTable: (
  options: DynamoLockTable.TableOptions
) => Effect.Effect<ReadonlyArray<DynamoLockTable.TableProblem>, LockStoreError | LockConfigError> =
  DynamoLockTable.checkTable
