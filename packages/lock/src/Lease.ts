/**
 * A held lock: the handle `Lock.acquire` returns, with its fencing token and where it stands.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { LockLost } from "./LockError.js"
import type { LockRecord } from "./LockRecord.js"

/**
 * Where a held lock stands. `AtRisk` goes back to `Held` after a successful renew; `Lost`, `Released` and `HandedOff`
 * are final. `HandedOff`: `Lock.handOff` turned the lease into a hand-off value; whoever resumes it holds the lock now.
 *
 * @since 0.1.0
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
 * @since 0.1.0
 * @category models
 */
export interface Lease {
  readonly name: string
  /** Random per acquisition. */
  readonly owner: string
  readonly holder: string
  /** The fencing token: pass it to downstream systems so they can reject writes from an older holder. */
  readonly fence: number
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
}
