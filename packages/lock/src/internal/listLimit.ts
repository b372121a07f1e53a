/**
 * The page sizes `list` takes, in every store.
 *
 * @internal
 */

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
