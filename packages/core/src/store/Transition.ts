/**
 * What a store operation does to the one record it touches: its answer, and the record to keep after it. A store of
 * any runtime reads the record, asks a rule of `LockTransitions` or `SemaphoreTransitions` for the transition, and
 * keeps `next` in the same atomic step, so that the rules are written once whatever keeps the records.
 *
 * @since 1.0.0
 */

/**
 * An operation's answer, and the record to keep after it: `undefined` when the operation writes nothing (its
 * condition failed, or it finds its work done already), so that the record stays as it was.
 *
 * @since 1.0.0
 * @category models
 */
export interface Transition<Result, Record> {
  readonly result: Result
  readonly next: Record | undefined
}

/**
 * An answer that writes nothing.
 *
 * @since 1.0.0
 * @category constructors
 */
export const unchanged = <Result>(result: Result): Transition<Result, never> => ({ result, next: undefined })

/**
 * An answer that keeps `next` in place of the record.
 *
 * @since 1.0.0
 * @category constructors
 */
export const written = <Result, Record>(result: Result, next: Record): Transition<Result, Record> => ({ result, next })

/**
 * Applies `rule` to the record kept at `key` in `records` (a store in one process's memory, whose operations are
 * atomic): keeps the record the rule writes, if any, and answers its result.
 *
 * @since 1.0.0
 * @category combinators
 */
export const apply = <Key, Result, Record>(
  records: Map<Key, Record>,
  key: Key,
  rule: (current: Record | undefined) => Transition<Result, Record>
): Result => {
  const transition = rule(records.get(key))
  if (transition.next !== undefined) records.set(key, transition.next)
  return transition.result
}
