/**
 * A lease session of this process: one record of its own (`LeaseSession.recordName(id)`, held by the session's id),
 * kept by one heartbeat, the keeper every lease has; and the locks acquired under it, which name the session in their
 * records and have no heartbeat of their own (`Keeper.startUnder`). Their deadline and status are the session's, and
 * they are lost with it, each before anyone may judge the session dead and take it over.
 *
 * @internal
 */
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import { defaultHolder, random as randomOwner } from "@leasehold/core/record/Owner"
import * as LeaseSessionCore from "@leasehold/core/session/LeaseSession"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { LeaseSession } from "../../LeaseSession.js"
import type { LockOptions } from "../../Lock.js"
import { type LockConfigError, LockNotAcquired, type LockStoreError } from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import * as Keeper from "../lease/keeper.js"
import * as LeaseState from "../lease/leaseState.js"
import * as LeaseStore from "../lease/leaseStore.js"
import { LeaseView } from "../lease/leaseView.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import { monotonicMillis } from "../process/clock.js"
import * as LeaseUsers from "../process/leaseUsers.js"

/** The handle of a session: its id and holder, and where its own lease stands. */
export class SessionHandle extends LeaseView {
  readonly id: string
  readonly holder: string
  /** The store the session's record is in: locks of another store are not held under it. */
  readonly #store: LockStore

  constructor(state: LeaseState.LeaseState, holder: string, store: LockStore) {
    super(state)
    this.id = state.owner
    this.holder = holder
    this.#store = store
  }

  static storeOf(handle: SessionHandle): LockStore {
    return handle.#store
  }
}

/**
 * The session the locks of a fiber are acquired under, if any.
 *
 * @internal
 */
export class CurrentLeaseSession extends EffectLine.Reference<CurrentLeaseSession>()(
  "@leasehold/lock/LeaseSession/CurrentLeaseSession",
  { defaultValue: (): LeaseSession | undefined => undefined }
) {}

/**
 * The session of this process that `session` is, kept in `store`; `undefined` for none, or one of another store.
 *
 * @internal
 */
export const inStore = (session: LeaseSession | undefined, store: LockStore): SessionHandle | undefined =>
  session instanceof SessionHandle && SessionHandle.storeOf(session) === store ? session : undefined

/** The record of a new session, written once: its name is new, so only a store failure keeps it out. */
const openRecord = (store: LockStore, options: Options.Resolved) =>
  Effect.gen(function*() {
    const id = randomOwner()
    const sentAt = yield* monotonicMillis
    const result = yield* store.tryAcquire({
      name: LeaseSessionCore.recordName(id),
      owner: id,
      holder: options.holder,
      leaseMs: options.leaseMs,
      data: undefined,
      takeover: options.takeover === "absolute"
        ? { _tag: "Absolute", maxClockSkewMs: options.maxClockSkewMs }
        : { _tag: "Observed", stale: undefined }
    })
    const answeredAt = yield* monotonicMillis
    return { id, result, sentAt, answeredAt }
  })

/**
 * Opens a session in the current store, kept until the scope closes; then the locks still held under it are
 * released, and the session's record after them.
 *
 * @internal
 */
export const make = (
  options?: LockOptions
): Effect.Effect<SessionHandle, LockNotAcquired | LockStoreError | LockConfigError, LockStore | Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const store = yield* LockStore
      const resolved = yield* Options.fromCheck(Options.resolveCheck(yield* LockDefaults, options, defaultHolder))
      const { answeredAt, id, result, sentAt } = yield* restore(openRecord(store, resolved))
      const name = LeaseSessionCore.recordName(id)
      if (result._tag !== "Acquired" || !LeaseDeadline.isInTime(resolved, sentAt, answeredAt)) {
        // Answered too late to rely on (or, against a new name, refused): whatever it wrote expires on its own.
        if (result._tag === "Acquired") yield* Effect.ignore(store.release({ name, owner: id, fence: undefined }))
        return yield* new LockNotAcquired({
          name,
          holder: undefined,
          waitedMs: answeredAt - sentAt,
          ...(result._tag === "Acquired" ? { answeredAfterMs: answeredAt - sentAt } : {})
        })
      }
      const keeper = yield* Keeper.keep({
        store: LeaseStore.ofLock(store),
        record: result.record,
        options: resolved,
        sentAt,
        keptSince: answeredAt,
        users: LeaseUsers.make(),
        onEnd: Keeper.noEnd,
        handle: (state) => new SessionHandle(state, resolved.holder, store)
      })
      yield* Effect.addFinalizer(() => Effect.andThen(endMembers(keeper.lease), keeper.release))
      return keeper.lease
    }).pipe(EffectLine.withSpan("LeaseSession.make", { attributes: {} }))
  )

/**
 * Ends the locks still held under a session whose scope closes: each is lost (its users interrupted) and given back,
 * before the session's record is, so that none outlives the session it relies on.
 */
const endMembers = (handle: SessionHandle): Effect.Effect<void> =>
  Effect.suspend(() => {
    const state = LeaseView.stateOf(handle)
    const members = state.members === undefined ? [] : [...state.members]
    return Effect.forEach(members, (member) => LeaseState.declareLost(member, "expired", undefined), {
      discard: true
    })
  })

/**
 * The session's own lease, for the locks acquired under it.
 *
 * @internal
 */
export const stateOf = (handle: SessionHandle): LeaseState.LeaseState => LeaseView.stateOf(handle)
