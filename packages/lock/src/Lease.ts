/**
 * A held lock: the handle `Lock.acquire` returns, with its fencing token and where it stands.
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { LockConfigError, LockLost, LockStoreError } from "./LockError.js"
import type { LockRecord } from "./LockRecord.js"

/**
 * Where a held lock stands. `AtRisk` goes back to `Held` after a successful renew; `Lost`, `Released` and `HandedOff`
 * are final. `HandedOff`: `Lock.handOff` turned the lease into a hand-off value; whoever resumes it holds the lock now.
 *
 * @since 1.0.0
 * @category models
 */
export type LeaseStatus =
  | { readonly _tag: "Held" }
  | { readonly _tag: "AtRisk"; readonly remainingMs: number }
  | { readonly _tag: "Lost"; readonly error: LockLost }
  | { readonly _tag: "Released" }
  | { readonly _tag: "HandedOff" }

/**
 * A held lock.
 *
 * @since 1.0.0
 * @category models
 */
export interface Lease {
  readonly name: string
  /** Random per acquisition. */
  readonly owner: string
  readonly holder: string
  /** The fencing token: pass it to downstream systems so they can reject writes from an older holder. */
  readonly fence: number
  /** The data stored with the lock: the acquire's (`LockOptions.data`), then that of the latest `updateData`. */
  readonly data: string | undefined
  /** The record as the acquiring write left it. */
  readonly record: LockRecord
  /** The current status. */
  readonly status: Effect.Effect<LeaseStatus>
  /** The current status, then every change. */
  readonly changes: Stream.Stream<LeaseStatus>
  /** Whether the lease is held (possibly at risk). */
  readonly isHeld: Effect.Effect<boolean>
  /** Waits until the lease is lost, and fails with the reason. Never completes if it is released or handed off first. */
  readonly lost: Effect.Effect<never, LockLost>
  /**
   * Replaces the data stored with the lock (`undefined` removes it) and extends the lease, in one conditional write:
   * the heartbeat's renew, with the data in it. No other process can take the lock over in between, and the local
   * deadline counts from just before the write was sent, as after a heartbeat.
   *
   * The write goes one at a time with the heartbeat's renews (it waits for one in flight, and a renew that falls due
   * waits for it), so the store's lease never ends before the local deadline. Fails with `LockConfigError` (data over
   * `LockRecord.maxDataBytes`, or not well-formed) before any store call; with `LockLost` if the lease is lost,
   * released or at its deadline, before the write or by the time it answers; with `LockStoreError` if the store did
   * not answer (the lease is still held: the heartbeat keeps it, and the update may be tried again). On success, `data`
   * is the new value.
   *
   * @example
   * ```ts
   * import { Lock, LockStore } from "@leasehold/lock"
   * import { Console, Effect, Option } from "effect"
   *
   * const program = Effect.gen(function*() {
   *   const lease = yield* Lock.acquire("import/2024-06", { data: "step 1 of 3" })
   *   // ... step 1 ...
   *   yield* lease.updateData("step 2 of 3")
   *   // Anyone can see how far the holder got, in one read.
   *   const store = yield* LockStore.LockStore
   *   const record = Option.getOrThrow(yield* store.inspect("import/2024-06"))
   *   yield* Console.log(lease.data, record.data)
   *   // Output: step 2 of 3 step 2 of 3
   * }).pipe(Effect.scoped)
   *
   * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
   * ```
   *
   * @since 1.0.0
   */
  updateData(data: string | undefined): Effect.Effect<void, LockLost | LockStoreError | LockConfigError>
}
