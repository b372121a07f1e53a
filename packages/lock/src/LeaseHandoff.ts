/**
 * A held lease as a plain value: what `Lock.handOff` makes and `Lock.resume` takes, so that another process (or a later
 * invocation of the same function) goes on holding the lock with no window in which a third one could take it.
 *
 * The value is a capability: whoever has it can hold the lock until `leaseUntil`, as the holder would. Keep it as you
 * would keep a secret, and resume it once: the store can not tell two resumes of one hand-off apart.
 *
 * @since 1.0.0
 */
import * as DurationOption from "@leasehold/core/options/DurationOption"
import * as Schema from "effect/Schema"
import * as EffectLine from "./internal/effectLine.js"
import type { Codec } from "./internal/effectLine.js"

/**
 * A lease handed off, ready to be resumed. Plain data: every field is a string or a whole number, so it goes through
 * JSON as it is (see `schema` and `json`).
 *
 * @since 1.0.0
 * @category models
 */
export interface LeaseHandoff {
  readonly _tag: "LeaseHandoff"
  /** The lock name. */
  readonly name: string
  /** The owner id of the lease when handed off: the resuming write is conditional on it and moves it to a new one. */
  readonly owner: string
  /** The fencing token: the same for the resumed lease, since the lock never changed hands in the store. */
  readonly fence: number
  /** The readable holder name the lock was acquired with. */
  readonly holder: string
  /** The lease duration in ms; a resumed lease keeps it. */
  readonly leaseMs: number
  /**
   * Epoch ms on the handing-off process's clock when the lease runs out as last renewed. `Lock.resume` refuses to
   * write once its own clock has reached it.
   */
  readonly leaseUntil: number
}

/**
 * The longest lease a hand-off may carry: the longest duration any lock option takes.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxLeaseMs: number = DurationOption.maxMs

const nonEmpty = EffectLine.nonEmptyString

/**
 * The schema of a hand-off: its encoded form is the same plain object. `Schema.encodeSync(schema)` and
 * `Schema.decodeUnknownSync(schema)` turn it into something to store or send and back; `Lock.resume` checks its input
 * against it and refuses a malformed one with `LockConfigError`, as it does an owner or holder that is not
 * well-formed Unicode (a lone surrogate), which a string of the schema may be.
 *
 * @example
 * ```ts
 * import { LeaseHandoff } from "@leasehold/lock"
 * import { Console, Effect, Schema } from "effect"
 *
 * const handoff: LeaseHandoff.LeaseHandoff = {
 *   _tag: "LeaseHandoff",
 *   name: "orders/42",
 *   owner: "7f3c0a9e2b1d4c5f8a6e0b3d2c1f4a5e",
 *   fence: 17,
 *   holder: "billing-worker-1",
 *   leaseMs: 30_000,
 *   leaseUntil: 1_767_225_630_000
 * }
 * const decoded = Schema.decodeUnknownSync(LeaseHandoff.schema)(Schema.encodeSync(LeaseHandoff.schema)(handoff))
 * Effect.runSync(Console.log(decoded.fence))
 * // Output: 17
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const schema: Codec<LeaseHandoff> = EffectLine.withIdentifier(
  Schema.Struct({
    _tag: Schema.Literal("LeaseHandoff"),
    name: nonEmpty,
    owner: nonEmpty,
    fence: EffectLine.nonNegativeInt,
    holder: Schema.String,
    leaseMs: EffectLine.intBetween(1, maxLeaseMs),
    leaseUntil: EffectLine.nonNegativeInt
  }),
  "LeaseHandoff"
)

/**
 * A hand-off as a JSON string, e.g. for the payload of the next Lambda invocation or a queue message.
 *
 * @example
 * ```ts
 * import { LeaseHandoff } from "@leasehold/lock"
 * import { Console, Effect, Schema } from "effect"
 *
 * const text = '{"_tag":"LeaseHandoff","name":"report","owner":"a1","fence":3,"holder":"w","leaseMs":30000,' +
 *   '"leaseUntil":1767225630000}'
 * const handoff = Schema.decodeUnknownSync(LeaseHandoff.json)(text)
 * Effect.runSync(Console.log(handoff.name, Schema.encodeSync(LeaseHandoff.json)(handoff) === text))
 * // Output: report true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const json: Codec<LeaseHandoff, string> = EffectLine.fromJsonString(schema)
