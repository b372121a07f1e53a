/**
 * Where a command finds its lock table: the flags every command takes (`--table`, `--region`, `--endpoint`,
 * `--prefix`, `--local`), their environment defaults (as the AWS CLI reads them), and the store and table options
 * they resolve to. The table's key attributes are not flags: the commands that read or write locks ask the table
 * (`DescribeTable`), so that they work on any lock table, with a sort key or without, as it is.
 *
 * @since 1.0.0
 */
import type { DynamoDBClient, DynamoDBClientConfig } from "@aws-sdk/client-dynamodb"
import * as StoreOptions from "@leasehold/core/dynamodb/StoreOptions"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as CliError from "./CliError.js"
import type * as Help from "./Help.js"
import * as Flag from "./internal/flag.js"
import * as LoadDynamo from "./internal/loadDynamo.js"
import * as LocalServer from "./internal/localServer.js"

/**
 * The table `--local` creates on its embedded server, and uses unless `--table` names another.
 *
 * @since 1.0.0
 * @category constants
 */
export const localTable = "leasehold-locks"

/**
 * The region used with an explicit endpoint when none is configured: local servers accept any region, and the AWS
 * SDK refuses to send a request without one.
 *
 * @since 1.0.0
 * @category constants
 */
export const endpointRegion = "us-east-1"

const tableFlag = Flag.text({
  name: "table",
  alias: "t",
  value: "TABLE",
  description: `The lock table's name. Default: $LEASEHOLD_TABLE (with --local: "${localTable}").`
})

const regionFlag = Flag.text({
  name: "region",
  value: "REGION",
  description: "The AWS region of the table. Default: $AWS_REGION, then $AWS_DEFAULT_REGION, then the AWS profile's."
})

const endpointFlag = Flag.text({
  name: "endpoint",
  value: "URL",
  description: "A DynamoDB endpoint URL (DynamoDB Local, dynalite, a VPC endpoint). On a loopback address the CLI " +
    "signs with dummy keys unless AWS_PROFILE or AWS_ACCESS_KEY_ID is set. Default: $DYNAMODB_ENDPOINT."
})

const prefixFlag = Flag.text({
  name: "prefix",
  value: "PREFIX",
  description: "The key prefix the applications' stores use (DynamoLockStore's `prefix`; in a table with a sort " +
    `key, the partition key value of the family, by default "${StoreOptions.defaultFamily}"). ` +
    "Default: $LEASEHOLD_PREFIX."
})

const localFlag = Flag.boolean({
  name: "local",
  description: "Start an embedded, empty, in-memory DynamoDB (dynalite) with a lock table, for trying the CLI out. " +
    "It lives only as long as this command: useful with `watch --local`, which prints the endpoint for your programs."
})

/**
 * The connection flags, shared by every command.
 *
 * @since 1.0.0
 * @category options
 */
export const options = {
  table: tableFlag.options,
  region: regionFlag.options,
  endpoint: endpointFlag.options,
  prefix: prefixFlag.options,
  local: localFlag.options
}

/**
 * The connection flags as `--help` lists them.
 *
 * @since 1.0.0
 * @category options
 */
export const help: ReadonlyArray<Help.Row> = [
  tableFlag.help,
  regionFlag.help,
  endpointFlag.help,
  prefixFlag.help,
  localFlag.help
]

/**
 * The connection flags as parsed.
 *
 * @since 1.0.0
 * @category models
 */
export interface Flags {
  readonly table: Option.Option<string>
  readonly region: Option.Option<string>
  readonly endpoint: Option.Option<string>
  readonly prefix: Option.Option<string>
  readonly local: boolean
}

/**
 * A resolved connection: the table, the client settings, and a description of where it is for messages.
 *
 * @since 1.0.0
 * @category models
 */
export interface Connection {
  readonly tableName: string
  readonly prefix: string | undefined
  readonly clientConfig: DynamoDBClientConfig
  /** "http://127.0.0.1:8000", "region eu-west-1", ... */
  readonly location: string
  /** Set with `--local`: the endpoint of the embedded server, for other programs. */
  readonly localEndpoint: string | undefined
}

/** The emulators accept any key; fixed dummy keys keep the SDK from hunting for real ones. */
const dummyCredentials = { accessKeyId: "leasehold", secretAccessKey: "leasehold" } as const

const isLoopback = (hostname: string) =>
  hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname)

const envOption = (name: string) => Config.option(Config.nonEmptyString(name))

const fromEnv = Config.all({
  table: envOption("LEASEHOLD_TABLE"),
  region: Config.orElse(envOption("AWS_REGION"), () => envOption("AWS_DEFAULT_REGION")),
  endpoint: envOption("DYNAMODB_ENDPOINT"),
  prefix: envOption("LEASEHOLD_PREFIX"),
  accessKey: envOption("AWS_ACCESS_KEY_ID"),
  profile: envOption("AWS_PROFILE")
})

const parseEndpoint = (url: string) => {
  try {
    const parsed = new URL(url)
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return Effect.succeed(parsed)
  } catch {
    // reported below
  }
  return Effect.fail(
    CliError.usage(`--endpoint "${url}" is not an http(s) URL: use e.g. --endpoint http://127.0.0.1:8000`)
  )
}

/**
 * Starts dynalite for the life of the scope and creates the lock table on it. Loaded on demand: the embedded server
 * is for trying things out, and every other start of the CLI should not pay for loading it.
 */
const startLocal = (tableName: string, createTable: boolean) =>
  Effect.gen(function*() {
    const endpoint = yield* LocalServer.start.pipe(
      Effect.mapError((error) => CliError.store(`--local: ${error.message}`))
    )
    const clientConfig = { endpoint, region: endpointRegion, credentials: dummyCredentials }
    if (createTable) {
      const { DynamoLockTable } = yield* LoadDynamo.load
      yield* DynamoLockTable.createTable({ tableName, clientConfig }).pipe(
        Effect.mapError((error) =>
          error._tag === "LockConfigError"
            ? CliError.invalidOption(error)
            : CliError.store(`--local: could not create table "${tableName}": ${error.message}`)
        )
      )
    }
    yield* Console.error(
      `leasehold: --local: started an embedded dynalite at ${endpoint}` +
        (createTable ? ` with table "${tableName}"` : "") + `; it stops when this command exits`
    )
    return clientConfig
  })

/**
 * Resolves the flags against the environment. With `--local`, starts the embedded server in the scope, with the lock
 * table on it unless `createLocalTable` is false (`table create` makes it itself).
 *
 * @since 1.0.0
 * @category constructors
 */
export const resolve = (
  flags: Flags,
  options: { readonly createLocalTable?: boolean | undefined } = {}
): Effect.Effect<Connection, CliError.CliError, Scope.Scope> =>
  Effect.gen(function*() {
    const env = yield* fromEnv.pipe(
      Effect.mapError((error) => CliError.usage(`could not read the environment: ${String(error)}`))
    )
    const prefix = Option.getOrUndefined(Option.orElse(flags.prefix, () => env.prefix))
    if (flags.local) {
      if (Option.isSome(flags.endpoint)) {
        return yield* CliError.usage("--local starts its own server: drop --endpoint, or drop --local")
      }
      const tableName = Option.getOrElse(flags.table, () => localTable)
      const clientConfig = yield* startLocal(tableName, options.createLocalTable ?? true)
      return {
        tableName,
        prefix,
        clientConfig,
        location: clientConfig.endpoint,
        localEndpoint: clientConfig.endpoint
      }
    }
    const tableName = Option.orElse(flags.table, () => env.table)
    if (Option.isNone(tableName)) {
      return yield* CliError.usage(
        "no table given: pass --table NAME or set LEASEHOLD_TABLE (or try it out with --local)"
      )
    }
    const endpoint = Option.orElse(flags.endpoint, () => env.endpoint)
    const region = Option.orElse(flags.region, () => env.region)
    if (Option.isNone(endpoint)) {
      const clientConfig: DynamoDBClientConfig = Option.isSome(region) ? { region: region.value } : {}
      return {
        tableName: tableName.value,
        prefix,
        clientConfig,
        location: Option.match(region, { onNone: () => "the AWS profile's region", onSome: (r) => `region ${r}` }),
        localEndpoint: undefined
      }
    }
    const url = yield* parseEndpoint(endpoint.value)
    const useDummyKeys = isLoopback(url.hostname) && Option.isNone(env.accessKey) && Option.isNone(env.profile)
    return {
      tableName: tableName.value,
      prefix,
      clientConfig: {
        endpoint: url.origin,
        region: Option.getOrElse(region, () => endpointRegion),
        ...(useDummyKeys ? { credentials: dummyCredentials } : {})
      },
      location: url.origin,
      localEndpoint: undefined
    }
  })

/**
 * An existing lock table, opened: the connection, the one client every request of the command goes through, and the
 * table's key attributes as the table itself gave them.
 *
 * @since 1.0.0
 * @category models
 */
export interface Table extends Connection {
  readonly client: DynamoDBClient
  readonly partitionKey: string
  /** Set for a table with a sort key: lock names are sort keys, and the prefix is the family's partition key value. */
  readonly sortKey: string | undefined
}

/**
 * A client for the connection, destroyed with the scope. One attempt per request, as the store's own clients make:
 * the store and the table helpers retry on their own schedule.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeClient = (connection: Connection): Effect.Effect<DynamoDBClient, never, Scope.Scope> =>
  Effect.flatMap(LoadDynamo.load, ({ DynamoDBClient }) =>
    Effect.acquireRelease(
      Effect.sync(() => new DynamoDBClient({ maxAttempts: 1, ...connection.clientConfig })),
      (client) => Effect.sync(() => client.destroy())
    ))

/**
 * The family a table's commands see, for messages: "" for the family without a prefix, else ` (prefix "billing")`.
 * In a table with a sort key every family has a partition, the default one included.
 *
 * @since 1.0.0
 * @category formatting
 */
export const family = (table: Table): string =>
  table.sortKey !== undefined
    ? ` (family "${table.prefix ?? StoreOptions.defaultFamily}")`
    : table.prefix === undefined
    ? ""
    : ` (prefix "${table.prefix}")`

/**
 * The live store on the table, for the life of the scope. The clock-skew guard is off: the CLI never takes a lock or
 * permits over, it only reads and force-releases.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeStore = (table: Table): Effect.Effect<LockStore.LockStore, CliError.CliError, Scope.Scope> =>
  Effect.flatMap(LoadDynamo.load, ({ DynamoLockStore }) =>
    DynamoLockStore.make({
      tableName: table.tableName,
      client: table.client,
      partitionKey: table.partitionKey,
      sortKey: table.sortKey,
      clockSkewGuard: false,
      ...(table.prefix === undefined ? {} : { prefix: table.prefix })
    }).pipe(Effect.mapError(CliError.invalidOption)))
