/**
 * Giving back a write that may have applied but can not be used (an unfinished acquire, a resume answered too late or
 * not at all): one release attempt, bounded, and a failure logged in one line. After that the lease just runs out.
 *
 * @internal
 */
import type * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { failureReason } from "./failureReason.js"
import type * as LeaseStore from "./leaseStore.js"

/** The release attempt gets this long. */
const timeout = Duration.seconds(2)

/**
 * Releases `request` once; on failure logs `failed(reason)`. Also runs from `onExit`, which is uninterruptible.
 *
 * @internal
 */
export const giveBack = (
  store: LeaseStore.LeaseStore,
  request: LockProtocol.ReleaseRequest,
  failed: (reason: string) => string
): Effect.Effect<void> =>
  store.release(request).pipe(
    // See release.ts for why `interruptible` precedes the timeout.
    Effect.interruptible,
    Effect.timeout(timeout),
    Effect.matchCauseEffect({
      onFailure: (cause) => Effect.logWarning(failed(failureReason(cause, timeout))),
      onSuccess: () => Effect.void
    })
  )
