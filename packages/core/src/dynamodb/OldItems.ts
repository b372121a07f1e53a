/**
 * Whether a server returns the old item of a failed condition (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), as a
 * store learns it: from the first conflict that carries the old item. After that, a conflict without an item means
 * "no item" and needs no read. Servers without the option (dynalite) never teach it, and each of their conflicts
 * costs one consistent read.
 *
 * @since 1.0.0
 */

/**
 * What a store has learned of its server.
 *
 * @since 1.0.0
 * @category models
 */
export interface OldItems {
  returnsOldItems: boolean
}

/**
 * A store's, before its first conflict.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (): OldItems => ({ returnsOldItems: false })

/**
 * The item that made a condition fail, as far as the answer tells it (`Known`, `undefined` for no item), or `Read`:
 * one consistent read must tell it.
 *
 * @since 1.0.0
 * @category models
 */
export type OldItem<I> = { readonly _tag: "Known"; readonly item: I | undefined } | { readonly _tag: "Read" }

const read: OldItem<never> = { _tag: "Read" }

const absent: OldItem<never> = { _tag: "Known", item: undefined }

/**
 * The old item of a conflict whose answer carried `item`; `mayBeAbsent` says whether "no item" is a possible answer
 * (a create's condition, for one, fails only on an item that exists).
 *
 * @since 1.0.0
 * @category decisions
 */
export const oldItem = <I>(learned: OldItems, item: I | undefined, mayBeAbsent: boolean): OldItem<I> => {
  if (item !== undefined) {
    learned.returnsOldItems = true
    return { _tag: "Known", item }
  }
  return learned.returnsOldItems && mayBeAbsent ? absent : read
}
