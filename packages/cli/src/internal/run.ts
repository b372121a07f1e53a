/**
 * What every command does around its work: resolve the connection, build the store, turn store errors into
 * operator messages.
 *
 * @internal
 */
import type { LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as CliError from "../CliError.js"
import * as Connection from "../Connection.js"

/** @internal */
export const storeError = (error: LockStoreError): CliError.CliError =>
  // The SDK only finds out at the first request that it has no region; that is a usage error, not a store problem.
  /Region is missing/.test(error.message)
    ? CliError.usage("no region: pass --region REGION, set AWS_REGION, or set a region in your AWS profile")
    : CliError.store(error.message)

/** Store errors and option errors of the table helpers, as operator messages. */
export const tableError = (error: LockStoreError | LockConfigError): CliError.CliError =>
  error._tag === "LockConfigError" ? CliError.invalidOption(error) : storeError(error)

/** @internal */
export const withConnection = <A, E, R>(
  flags: Connection.Flags,
  f: (connection: Connection.Connection) => Effect.Effect<A, E, R>,
  options: { readonly createLocalTable?: boolean | undefined } = {}
): Effect.Effect<A, E | CliError.CliError, Exclude<R, Scope.Scope>> =>
  Effect.scoped(Effect.flatMap(Connection.resolve(flags, options), f))

/** @internal */
export const withStore = <A, E, R>(
  flags: Connection.Flags,
  f: (store: LockStore.LockStore, connection: Connection.Connection) => Effect.Effect<A, E | LockStoreError, R>
): Effect.Effect<A, E | CliError.CliError, Exclude<R, Scope.Scope>> =>
  withConnection(
    flags,
    (connection) =>
      Effect.flatMap(Connection.makeStore(connection), (store) => f(store, connection)).pipe(
        Effect.catchIf(
          (error): error is LockStoreError =>
            typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "LockStoreError",
          (error) => Effect.fail(storeError(error))
        )
      ) as Effect.Effect<A, E | CliError.CliError, R | Scope.Scope>
  )

/**
 * Records from `cursor` on, page by page, until `limit` records or the end; returns where to resume.
 *
 * @internal
 */
export const readLocks = (
  store: LockStore.LockStore,
  options: { readonly limit?: number | undefined; readonly cursor?: string | undefined } = {}
): Effect.Effect<
  { readonly records: ReadonlyArray<LockRecord>; readonly cursor: string | undefined },
  LockStoreError
> =>
  Effect.gen(function*() {
    const records: Array<LockRecord> = []
    let cursor = options.cursor
    do {
      const want = options.limit === undefined
        ? LockStore.defaultListLimit
        : Math.min(LockStore.defaultListLimit, options.limit - records.length)
      if (want <= 0) break
      const page = yield* store.list({ cursor, limit: want })
      records.push(...page.records)
      cursor = page.cursor
    } while (cursor !== undefined)
    return { records, cursor }
  })
