/**
 * The exit codes of `leasehold`, for scripts. They are printed by `leasehold --help` and listed in the README.
 *
 * @since 1.0.0
 */

/**
 * The command did what was asked.
 *
 * @since 1.0.0
 * @category constants
 */
export const ok = 0

/**
 * A lock or store problem: `table check` found something wrong, DynamoDB could not be reached, the table is missing
 * or has another key schema, credentials were refused.
 *
 * @since 1.0.0
 * @category constants
 */
export const storeProblem = 1

/**
 * A usage error: an unknown or malformed flag, a missing table name or region, no AWS credentials found, an invalid
 * lock name.
 *
 * @since 1.0.0
 * @category constants
 */
export const usage = 2

/**
 * The lock or semaphore named does not exist (`inspect`), or the lock, or the semaphore holder named, does not hold
 * it (`release`): nothing was changed.
 *
 * @since 1.0.0
 * @category constants
 */
export const notFound = 3

/**
 * The operator declined the confirmation (or pressed Ctrl-C at the prompt): nothing was changed.
 *
 * @since 1.0.0
 * @category constants
 */
export const cancelled = 4

/**
 * The outcome of a write is not known (`release --force`): its answer was lost (or every attempt timed out), and what
 * the table shows now can not tell whether it was applied. The message says where the lock or holder stands now.
 *
 * @since 1.0.0
 * @category constants
 */
export const unknown = 5

/**
 * The table of exit codes as `--help` and the README show it.
 *
 * @since 1.0.0
 * @category constants
 */
export const table: readonly [
  readonly [code: number, meaning: string],
  ...Array<readonly [code: number, meaning: string]>
] = [
  [ok, "ok"],
  [storeProblem, "lock or store problem (table check failed, table missing, DynamoDB unreachable)"],
  [usage, "usage error (bad flag or value, no table, region or credentials given)"],
  [notFound, "lock or semaphore not found (inspect), or not held (release)"],
  [cancelled, "cancelled at the confirmation prompt"],
  [unknown, "outcome unknown (release): its answer was lost, and the table can not tell whether it applied"]
]
