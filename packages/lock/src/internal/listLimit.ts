/**
 * The page sizes `list` takes, in every store.
 *
 * @internal
 */

/**
 * A whole number of at least 1, or `Infinity` for "everything". DynamoDB refuses any other `Limit`.
 *
 * @internal
 */
export const isValid = (limit: number): boolean => limit === Infinity || (Number.isSafeInteger(limit) && limit >= 1)
