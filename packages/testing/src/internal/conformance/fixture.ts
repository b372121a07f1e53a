/**
 * What every conformance test gets, how tests are registered, and the timings and takeovers they share.
 *
 * @internal
 */
import type * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"

/**
 * What every test gets: the store under test and names private to this test run.
 *
 * @internal
 */
export interface Fixture {
  readonly store: LockStore.LockStore
  /** A name under this test's private prefix. */
  readonly name: (label: string) => string
  /** The private prefix itself, for `list`. */
  readonly prefix: string
  /** Checks a `current` field against the holder the test expects (honouring `reportsCurrent`). */
  readonly expectCurrent: (
    actual: LockRecord.LockRecord | undefined,
    expected: LockRecord.LockRecord | undefined
  ) => void
  /** Checks a renew's `Lost.current` against the holder the test expects: every store must report it. */
  readonly expectLostTo: (
    actual: LockRecord.LockRecord | undefined,
    expected: LockRecord.LockRecord | undefined
  ) => void
  /**
   * Ends the test as skipped, saying why: for what the contract leaves optional and the store does not do. What the
   * test asserted before it still counts.
   */
  readonly skip: (note: string) => Effect.Effect<never, Skipped>
}

/**
 * How `Fixture.skip` ends a test's body: a failure that the test's runner takes for the skip it stands for.
 *
 * @internal
 */
export class Skipped {
  readonly _tag = "Skipped"
}

/**
 * Registers one test: its body runs against a fresh store, on a `TestClock` set to the suite's epoch.
 *
 * @internal
 */
export type Test = (
  title: string,
  body: (fixture: Fixture) => Effect.Effect<void, unknown, LockStore.LockStore>
) => void

/**
 * A lease long enough that no test expires it by accident, short enough to read the arithmetic.
 *
 * @internal
 */
export const leaseMs = 15_000

/**
 * The default of `Lock`, so absolute takeovers are tested at the boundary users get.
 *
 * @internal
 */
export const maxClockSkewMs = 10_000

/**
 * Wall-clock expiry, with the given skew allowance.
 *
 * @internal
 */
export const absolute = (skew: number = maxClockSkewMs): LockStore.Takeover => ({
  _tag: "Absolute",
  maxClockSkewMs: skew
})

/**
 * Takeover after watching a record stay the same, with or without such an observation.
 *
 * @internal
 */
export const observed = (stale?: LockStore.StaleObservation): LockStore.Takeover => ({ _tag: "Observed", stale })

/**
 * 128 random bits, hex, as `Lock` makes owners; real randomness because names must not collide across runs.
 *
 * @internal
 */
export const makeOwner = (): string => randomBytes(16).toString("hex")

/**
 * A fresh random prefix, so that tests never see each other's records, even on a shared table.
 *
 * @internal
 */
export const makePrefix = (): string => `leasehold-conformance/${randomBytes(8).toString("hex")}/`

/** @internal */
export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length
