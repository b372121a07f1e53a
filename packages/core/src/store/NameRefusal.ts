/**
 * How a store that keys names by their plain UTF-8 bytes (the memory store) words its refusal of a name it can not key,
 * in an operation on a lock or a semaphore, as DynamoDB refuses such a key.
 *
 * @since 1.0.0
 */
import type * as LockName from "../record/LockName.js"

/**
 * Why a name can not be a key of at most some UTF-8 bytes, as the store's name check finds it.
 *
 * @since 1.0.0
 * @category models
 */
export type NameProblem = LockName.Problem

const bytesOf = (problem: NameProblem): number => problem._tag === "TooLong" ? problem.bytes : 0

/**
 * The refusal of a lock name, against the store's budget of `maxNameBytes`.
 *
 * @since 1.0.0
 * @category messages
 */
export const lock = (problem: NameProblem, maxNameBytes: number): string =>
  problem._tag === "NotWellFormed"
    ? "lock name is not well-formed Unicode (a lone surrogate has no UTF-8 form)"
    : `lock name is ${bytesOf(problem)} UTF-8 bytes; this store takes names of 1 to ${maxNameBytes} bytes`

/**
 * The refusal of a semaphore name, against the budget of a semaphore name, `maxNameBytes`: a byte under a lock's.
 *
 * @since 1.0.0
 * @category messages
 */
export const semaphore = (problem: NameProblem, maxNameBytes: number): string =>
  problem._tag === "NotWellFormed"
    ? "semaphore name is not well-formed Unicode (a lone surrogate has no UTF-8 form)"
    : `semaphore name is ${bytesOf(problem)} UTF-8 bytes; this store takes semaphore names of 1 to ${maxNameBytes} ` +
      `bytes (one less than lock names)`
