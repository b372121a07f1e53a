/**
 * What an effect ended with, a failure or a success, as a plain union: a loop of the shell branches on it the same way
 * on both Effect lines (where Effect 3 has `Either` and Effect 4 `Result`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** @internal */
export type Outcome<A, E> =
  | { readonly _tag: "Success"; readonly success: A }
  | { readonly _tag: "Failure"; readonly failure: E }

/**
 * `self` with its failure as a value; defects and interruptions stay as they are.
 *
 * @internal
 */
export const outcome = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<Outcome<A, E>, never, R> =>
  Effect.match(self, {
    onFailure: (failure): Outcome<A, E> => ({ _tag: "Failure", failure }),
    onSuccess: (success): Outcome<A, E> => ({ _tag: "Success", success })
  })
