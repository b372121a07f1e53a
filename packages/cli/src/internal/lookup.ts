/**
 * Finding the one lock or semaphore a command names, and saying precisely why it is not there: a lock and a
 * semaphore of the same name are two records, and in a table with a sort key the lock `#x` has the key of the
 * semaphore `x` (a semaphore's sort key is `#` and its name), so each can be looked for under the other's name.
 *
 * @internal
 */
import type { LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Connection from "../Connection.js"

/** What a semaphore's key has in front of its name in a table with a sort key. */
const semaphoreMarker = "#"

/**
 * A word as a shell reads it: as it is when it is plain, else in single quotes, so that a hint can be copied.
 *
 * @internal
 */
export const shellWord = (word: string): string =>
  /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

/**
 * `read`, or when it fails, the error `instead` makes if it has one (the record under the other kind's key), else the
 * read's own error.
 */
const orInstead = <A>(
  read: Effect.Effect<A, LockStoreError>,
  instead: Effect.Effect<CliError.CliError | undefined>
): Effect.Effect<A, LockStoreError | CliError.CliError> =>
  Effect.catchAll(read, (error) =>
    Effect.flatMap(
      instead,
      (replacement): Effect.Effect<never, LockStoreError | CliError.CliError> => Effect.fail(replacement ?? error)
    ))

/** Whether a read finds something; a failed read (a name too long for the other kind, say) finds nothing. */
const exists = <A>(read: Effect.Effect<Option.Option<A>, LockStoreError>): Effect.Effect<boolean> =>
  read.pipe(Effect.map(Option.isSome), Effect.orElseSucceed(() => false))

const where = (table: Connection.Table) => `table "${table.tableName}"${Connection.family(table)}`

const listHint = "`leasehold list` shows the names there (they are case-sensitive; check --prefix)"

/**
 * The lock `name`, or why there is none: a missing name points to a semaphore of that name when there is one.
 *
 * @internal
 */
export const lock = (
  store: LockStore.LockStore,
  table: Connection.Table,
  name: string
): Effect.Effect<LockRecord, CliError.CliError | LockStoreError> =>
  Effect.gen(function*() {
    const semaphoreName = name.slice(semaphoreMarker.length)
    const record = yield* orInstead(
      store.inspect(name),
      table.sortKey !== undefined && name.startsWith(semaphoreMarker)
        ? Effect.map(exists(store.inspectSemaphore(semaphoreName)), (isSemaphore) =>
          isSemaphore
            ? CliError.notFound(
              `no lock named "${name}" in ${where(table)}: in a table with a sort key its key holds the ` +
                `semaphore "${semaphoreName}" (a semaphore's sort key is "#" and its name): ` +
                `\`leasehold inspect --semaphore ${shellWord(semaphoreName)}\``
            )
            : undefined)
        : Effect.succeed(undefined)
    )
    if (Option.isSome(record)) return record.value
    if (yield* exists(store.inspectSemaphore(name))) {
      return yield* CliError.notFound(
        `no lock named "${name}" in ${where(table)}, but there is a semaphore of that name: ` +
          `\`leasehold inspect --semaphore ${shellWord(name)}\` shows it`
      )
    }
    return yield* CliError.notFound(`no lock named "${name}" in ${where(table)}: ${listHint}`)
  })

/**
 * The semaphore `name`, or why there is none: a missing name points to a lock of that name when there is one.
 *
 * @internal
 */
export const semaphore = (
  store: LockStore.LockStore,
  table: Connection.Table,
  name: string
): Effect.Effect<SemaphoreRecord, CliError.CliError | LockStoreError> =>
  Effect.gen(function*() {
    const record = yield* orInstead(
      store.inspectSemaphore(name),
      table.sortKey !== undefined
        ? Effect.map(exists(store.inspect(semaphoreMarker + name)), (isLock) =>
          isLock
            ? CliError.notFound(
              `no semaphore named "${name}" in ${where(table)}: in a table with a sort key its key holds the ` +
                `lock "${semaphoreMarker}${name}" (a semaphore's sort key is "#" and its name): ` +
                `\`leasehold inspect ${shellWord(semaphoreMarker + name)}\``
            )
            : undefined)
        : Effect.succeed(undefined)
    )
    if (Option.isSome(record)) return record.value
    if (yield* exists(store.inspect(name))) {
      return yield* CliError.notFound(
        `no semaphore named "${name}" in ${where(table)}, but there is a lock of that name: ` +
          `\`leasehold inspect ${shellWord(name)}\` shows it`
      )
    }
    return yield* CliError.notFound(`no semaphore named "${name}" in ${where(table)}: ${listHint}`)
  })
