/**
 * The `LockStore` conformance suite: one set of tests that every store must pass, so that a behaviour present in one
 * store and absent in another shows up as a failing test rather than as a production surprise.
 *
 * ```ts
 * import { LockStore } from "@leasehold/lock"
 * import * as LockStoreConformance from "@leasehold/testing/LockStoreConformance"
 *
 * LockStoreConformance.suite("memory", () => LockStore.layerMemory)
 * ```
 *
 * The suite never assumes an empty store: every test works under its own random name prefix, so a store built on a
 * shared (even persistent) DynamoDB table passes as well as a fresh memory store. Time moves only through `TestClock`,
 * starting from a realistic epoch so that a DynamoDB store writes realistic `leaseUntil` and `ttl` values.
 *
 * Each test builds its store from `makeLayer()` under its `TestClock`. A `DynamoLockStore` passes with its default
 * options on a server of this host (dynalite, DynamoDB Local): built under the `TestClock`, its clock-skew guard reads
 * the server's time on it. Against a remote server, give it `clockSkewGuard: false` (see its documentation).
 *
 * @since 1.0.0
 */
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as Layer from "effect/Layer"
import * as internal from "./internal/conformance/suite.js"

/**
 * What a store may legitimately leave out. Everything else in the contract is required of every store.
 *
 * @since 1.0.0
 * @category models
 */
export interface Features {
  /**
   * Whether `Conflict` and `NotHeld` always carry the current holder. The contract allows `undefined` there when the
   * store could not tell; with `false` the suite accepts that, but still checks any holder that is returned. A renew's
   * `Lost` must always say: its `undefined` means the lock is free, and tells the holder so ("freed", not "stolen").
   * Default: `true` (the memory store, and DynamoDB with `ReturnValuesOnConditionCheckFailure` or its fallback read).
   */
  readonly reportsCurrent: boolean
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly features?: Partial<Features> | undefined
  /** Per-test timeout in ms, for stores that talk to a real server. Default: vitest's. */
  readonly timeout?: number | undefined
}

/**
 * Registers the conformance tests for one store. `makeLayer` is called once per test and the layer is built inside
 * that test, so a layer that needs a shared server (and fails with that server's errors) can be passed as it is.
 *
 * @since 1.0.0
 * @category tests
 */
export const suite: (
  storeName: string,
  makeLayer: () => Layer.Layer<LockStore.LockStore, unknown>,
  options?: Options
) => void = internal.suite
