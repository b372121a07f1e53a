/**
 * The page sizes `list` takes, in every store.
 *
 * @internal
 */
import type { LockRecord } from "../LockRecord.js"

/**
 * The page size when the caller gives none.
 *
 * @internal
 */
export const defaultLimit = 100

/**
 * What is wrong with a page size, or `undefined` if every store takes it: a whole number of at least 1, or `Infinity`
 * for "everything". DynamoDB refuses any other `Limit`, and a page of part of a record means nothing.
 *
 * @internal
 */
export const problem = (limit: unknown): string | undefined => {
  if (typeof limit === "number" && (limit === Infinity || (Number.isInteger(limit) && limit >= 1))) return undefined
  const shown = typeof limit === "string" ? JSON.stringify(limit) : String(limit)
  return `list limit ${shown} is not a page size: use a whole number of 1 or more (Infinity for every record in ` +
    `one page), or none for the default of ${defaultLimit}`
}

/**
 * A page of a listing: the public `LockStore.ListPage`.
 *
 * @internal
 */
export interface ListPage {
  readonly records: ReadonlyArray<LockRecord>
  readonly cursor: string | undefined
}

/**
 * What to list: the public `LockStore.ListRequest`.
 *
 * @internal
 */
export interface ListRequest {
  /** Only names starting with this. */
  readonly prefix?: string | undefined
  readonly cursor?: string | undefined
  /** Page size: a whole number of at least 1, or `Infinity`; stores may return fewer. Default 100. */
  readonly limit?: number | undefined
}
