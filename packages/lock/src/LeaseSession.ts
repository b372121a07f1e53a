/**
 * Lease sessions: many locks for the price of one heartbeat. A session is one record of its own, renewed by one
 * heartbeat; every lock acquired while it is provided is held under it, names it in its record and is not renewed by
 * itself. A process holding ten thousand locks under a session writes once per heartbeat, not ten thousand times.
 *
 * Losing the session loses every lock held under it at once: each section is interrupted, and each fails with its
 * own `LockLost` (naming the session), before any other process may take the lock over. Another process takes a lock
 * over only once it has judged the session dead from the session's record (absolute takeover: its lease end plus the
 * skew bound; observed takeover: unchanged for a whole lease), with a write conditioned on the lock's holder. A
 * process of a version before sessions never takes such a lock over.
 *
 * @example
 * ```ts
 * import { LeaseSession, Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 * // Ten locks, one heartbeat: every lock acquired in the program is held under the session.
 * const program = Effect.forEach(
 *   Array.from({ length: 10 }, (_, i) => `tenant-${i}`),
 *   (name) => Lock.acquire(name),
 *   { discard: true }
 * ).pipe(
 *   Effect.andThen(Console.log("held under one session")),
 *   Effect.scoped,
 *   Effect.provide(LeaseSession.layer({ lease: "30 seconds" })),
 *   Effect.provide(LockStore.layerMemory)
 * )
 * Effect.runPromise(program)
 * // Output: held under one session
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as EffectLine from "./internal/effectLine.js"
import * as internal from "./internal/session/leaseSession.js"
import type { LeaseStatus } from "./Lease.js"
import type { LockOptions } from "./Lock.js"
import type { LockConfigError, LockLost, LockNotAcquired, LockStoreError } from "./LockError.js"
import type { LockStore } from "./LockStore.js"

/**
 * A lease session of this process.
 *
 * @since 1.0.0
 * @category models
 */
export interface LeaseSession {
  /** The session's id (random, 128 bits): the records of the locks held under it name it. */
  readonly id: string
  /** A readable name for the process, for people. */
  readonly holder: string
  /** Where the session's own lease stands: the status of every lock held under it. */
  readonly status: Effect.Effect<LeaseStatus>
  /** The session's status, then every change of it; ends with the final status. */
  readonly changes: Stream.Stream<LeaseStatus>
  /** Whether the session is held (possibly at risk). */
  readonly isHeld: Effect.Effect<boolean>
  /** Fails with the session's `LockLost` once it is lost; never succeeds. */
  readonly lost: Effect.Effect<never, LockLost>
}

/**
 * The session the locks of a fiber are acquired under: none by default. Provide one with `layer`, or with
 * `Effect.provideService(LeaseSession.CurrentLeaseSession, session)` for a session from `make`. A lock of another
 * store than the session's is held on its own lease.
 *
 * @since 1.0.0
 * @category references
 */
export const CurrentLeaseSession: typeof internal.CurrentLeaseSession = internal.CurrentLeaseSession

/**
 * Opens a session in the current store, kept by one heartbeat until the scope closes. Its `lease`, `heartbeat`,
 * `safetyMargin`, `warnAt` and `holder` options are the session's (the defaults of `LockDefaults` apply); a lock
 * acquired under it keeps its own options for waiting and takeover. When the scope closes, the locks still held under
 * the session are lost and given back, and then the session's record.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: (
  options?: LockOptions
) => Effect.Effect<LeaseSession, LockNotAcquired | LockStoreError | LockConfigError, LockStore | Scope.Scope> =
  internal.make

/**
 * A session for everything the layer is provided to: every lock acquired there is held under it. The session opens
 * when the layer is built and ends when it is released.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options?: LockOptions
): Layer.Layer<never, LockNotAcquired | LockStoreError | LockConfigError, LockStore> =>
  EffectLine.layerScoped(internal.CurrentLeaseSession, internal.make(options)) as Layer.Layer<
    never,
    LockNotAcquired | LockStoreError | LockConfigError,
    LockStore
  >
