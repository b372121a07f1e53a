/**
 * Loads the SDK and the DynamoDB store on first use (a chunk of its own in the bundle).
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** @internal */
export type Dynamo = typeof import("./dynamo.js")

/** @internal */
export const load: Effect.Effect<Dynamo> = Effect.promise(() => import("./dynamo.js"))
