/**
 * Keeping a held lock: its state, one fiber of its own that runs the heartbeat, and the `Lease` handed to the caller.
 * The release stops the fiber when the lock's scope closes; nothing else does.
 *
 * A held lease is a few small objects and one sleeping fiber: an application may hold thousands, so what each one
 * keeps alive is kept to what its heartbeat, its status and its release need, and effects are built when they run.
 *
 * @internal
 */
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import type { Lease as LeaseApi } from "../../Lease.js"
import type { LeaseHandoff } from "../../LeaseHandoff.js"
import type { LockConfigError, LockLost, LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import * as Handoff from "../handoff/handoff.js"
import type * as Options from "../options/options.js"
import * as Background from "../process/background.js"
import { monotonicMillis } from "../process/clock.js"
import type * as LeaseUsers from "../process/leaseUsers.js"
import * as DataUpdate from "./dataUpdate.js"
import { giveBack } from "./giveBack.js"
import * as Heartbeat from "./heartbeat.js"
import * as LeaseState from "./leaseState.js"
import * as LeaseStore from "./leaseStore.js"
import { LeaseView } from "./leaseView.js"
import * as Release from "./release.js"

/**
 * A kept lease and `lease`, the handle its caller gets: a `Lease` for a lock.
 *
 * @internal
 */
export interface Keeper<Handle = LeaseApi> {
  readonly lease: Handle
  /** Whether the lease is held (possibly at risk), read synchronously. */
  readonly isLive: () => boolean
  /** Stops the heartbeat, abandons a renew in flight, releases. Never fails. */
  readonly release: Effect.Effect<void>
}

/** The handle of a held lock: the record's fields, and effects made when they are asked for. */
class Lease extends LeaseView implements LeaseApi {
  readonly #store: LockStore.LockStore
  readonly #options: Options.Resolved
  readonly name: string
  readonly owner: string
  readonly holder: string
  readonly fence: number
  readonly record: LockRecord

  constructor(
    state: LeaseState.LeaseState,
    record: LockRecord,
    holder: string,
    store: LockStore.LockStore,
    options: Options.Resolved
  ) {
    super(state)
    this.#store = store
    this.#options = options
    this.name = state.name
    this.owner = state.owner
    this.holder = holder
    this.fence = state.fence
    this.record = record
  }

  updateData(data: string | undefined): Effect.Effect<void, LockLost | LockStoreError | LockConfigError> {
    return DataUpdate.update(LeaseView.stateOf(this), this.#store, this.#options, data)
  }

  /**
   * Its keeper, for `Lock.handOff`: set by `start`. A field, where a map from leases would cost every acquire; private,
   * so that the lease shows (and serialises) as it did.
   */
  #keeper: Kept<Lease> | undefined = undefined

  static setKeeper(lease: Lease, keeper: Kept<Lease>): void {
    lease.#keeper = keeper
  }

  static keeperOf(lease: LeaseApi): Kept<Lease> | undefined {
    return lease instanceof Lease ? lease.#keeper : undefined
  }
}

/** Made apart from the class so that the check closes over the state alone. */
const liveCheck = (state: LeaseState.LeaseState) => () => LeaseState.isLive(state)

class Kept<Handle> implements Keeper<Handle> {
  lease!: Handle
  readonly isLive: () => boolean
  readonly #state: LeaseState.LeaseState
  readonly #store: LeaseStore.LeaseStore
  /** The heartbeat's fiber; none for a lease held under a session, which the session's heartbeat keeps. */
  readonly #fiber: EffectLine.Fiber<void> | undefined
  readonly #safetyMarginMs: number
  /** The lease a hand-off passes on: the record's, or for a lease under a session the acquire's own option. */
  readonly #leaseMs: number
  readonly #onEnd: () => void

  constructor(
    state: LeaseState.LeaseState,
    store: LeaseStore.LeaseStore,
    fiber: EffectLine.Fiber<void> | undefined,
    safetyMarginMs: number,
    leaseMs: number,
    onEnd: () => void
  ) {
    this.isLive = liveCheck(state)
    this.#state = state
    this.#store = store
    this.#fiber = fiber
    this.#safetyMarginMs = safetyMarginMs
    this.#leaseMs = leaseMs
    this.#onEnd = onEnd
  }

  /** Built when the scope closes, not for every lease up front. */
  get release(): Effect.Effect<void> {
    return Release.release(this.#state, this.#store, this.#fiber, this.#onEnd)
  }

  /** See `handoff.ts`; `lease` is this keeper's. */
  handOff(lease: LeaseApi): Effect.Effect<LeaseHandoff, LockLost> {
    return Handoff.handOff(this.#state, lease, this.#fiber, this.#safetyMarginMs, this.#leaseMs, this.#onEnd)
  }
}

/**
 * The end of a lease that nothing else waits for.
 *
 * @internal
 */
export const noEnd = (): void => {}

/**
 * Releases `keeper` when the scope closes. A plain scope finalizer, made apart from the acquire, holds the keeper
 * alone for as long as the lease is held: `Effect.addFinalizer` would keep a copy of the acquiring fiber's fiber-local
 * values, and a closure made inside the acquire everything the acquire had in reach.
 *
 * @internal
 */
export const releaseWithScope = <Handle>(keeper: Keeper<Handle>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizerExit(scope, () => keeper.release))

/**
 * Hands `lease` off (see `handoff.ts`), or `undefined` if `start` did not make it.
 *
 * @internal
 */
export const handOff = (lease: LeaseApi): Effect.Effect<LeaseHandoff, LockLost> | undefined =>
  Lease.keeperOf(lease)?.handOff(lease)

/**
 * A copy of `text` in one piece: ids built by appending are chains of small strings until something flattens them. A
 * slice of a longer string is copied from it in one piece, with no array of single characters on the way.
 */
const flat = (text: string): string => `${text} `.slice(0, -1)

/**
 * The span the renews of a lease are children of, as its ids alone: holding the acquire's span itself (its
 * attributes, its status, the pieces its ids were built from) for as long as the lease is held would cost more than
 * the rest of the lease.
 */
const renewParent: Effect.Effect<Tracer.AnySpan | undefined> = Effect.map(
  Effect.option(Effect.currentSpan),
  (span) =>
    Option.isSome(span)
      ? Tracer.externalSpan({
        traceId: flat(span.value.traceId),
        spanId: flat(span.value.spanId),
        sampled: span.value.sampled
      })
      : undefined
)

/**
 * Forks the heartbeat as a fiber of its own (a root fiber, like a daemon) with only the acquiring fiber's clock,
 * randomness, logging, tracing and metrics, inside no lease, and interruptible: started from the uninterruptible end of
 * an acquire, the loop is interruptible again. A fiber forked the usual way inherits the acquiring fiber's context and
 * held leases, and with them, for as long as the lease is held, the acquire's span, whatever the caller provided
 * around the acquire, and the leases it was inside. The heartbeat needs none of that.
 *
 * Fail closed: if the fiber ends for any reason but a release or a loss, nothing else would declare the loss. An
 * observer does it rather than a finalizer, which would stay on the sleeping fiber's stack.
 */
const forkHeartbeat = (state: LeaseState.LeaseState, heartbeat: Effect.Effect<void>) =>
  EffectLine.forkRoot(heartbeat, () =>
    // A hand-off stops the fiber, and says itself whether the lease was lost meanwhile.
    state.finished || state.handOff !== undefined ? undefined : LeaseState.declareLost(state, "expired", undefined))

/**
 * Starts keeping `record` alive in `store`, and makes the caller's handle of it. `sentAt` is the monotonic time just
 * before the acquiring write was sent. When the lease is lost, `users` are interrupted; when it is released, its
 * borrowers are, and `onEnd` runs. The caller must run `release` exactly once.
 *
 * @internal
 */
export const keep: <Handle>(args: KeepArgs<Handle>) => Effect.Effect<Keeper<Handle>> = (args) => keepKept(args)

interface KeepArgs<Handle> {
  readonly store: LeaseStore.LeaseStore
  /** For a semaphore's permits: how many, for the loss to say. */
  readonly permits?: number | undefined
  readonly record: LockRecord
  readonly options: Options.Resolved
  readonly sentAt: number
  /** Monotonic ms when the lease began to be held, if the caller has read it: else now. */
  readonly keptSince?: number | undefined
  readonly users: LeaseUsers.LeaseUsers
  /** Called once the lease has ended, released or handed off. */
  readonly onEnd: () => void
  readonly handle: (state: LeaseState.LeaseState) => Handle
}

const keepKept = <Handle>(args: KeepArgs<Handle>): Effect.Effect<Kept<Handle>> =>
  Effect.gen(function*() {
    const { options, record, store } = args
    const state = LeaseState.make({
      record,
      users: args.users,
      deadline: LeaseDeadline.fromSend(options, args.sentAt),
      keptSince: args.keptSince ?? (yield* monotonicMillis),
      permits: args.permits
    })
    const parent = yield* renewParent
    const fiber = yield* forkHeartbeat(state, Heartbeat.keep(state, store, options, args.sentAt, parent))
    const kept = new Kept<Handle>(state, store, fiber, options.safetyMarginMs, record.leaseMs, args.onEnd)
    kept.lease = args.handle(state)
    return kept
  })

/**
 * Starts keeping a lock's `record` alive (see `keep`), with a `Lease` as its handle.
 *
 * @internal
 */
export const start = (args: {
  readonly store: LockStore.LockStore
  readonly record: LockRecord
  readonly options: Options.Resolved
  readonly sentAt: number
  readonly keptSince?: number | undefined
  readonly users: LeaseUsers.LeaseUsers
  readonly onEnd: () => void
}): Effect.Effect<Keeper> => {
  const { options, record, store } = args
  return Effect.map(
    keepKept({
      ...args,
      store: LeaseStore.ofLock(store),
      handle: (state) => new Lease(state, record, record.holder ?? options.holder, store, options)
    }),
    (kept): Keeper => {
      Lease.setKeeper(kept.lease, kept)
      return kept
    }
  )
}

/**
 * Starts keeping `record`, acquired under the lease session whose own lease is `session`: no heartbeat of its own, the
 * session's deadline and status, lost with the session (see `LeaseState.declareLost`). `undefined` when the session
 * was lost (or is at its deadline) by the time the lease would be held: nobody may rely on it, and it is given back in
 * the background. The check and the joining are one synchronous step, so a loss of the session either finds the lease among its
 * members or comes before it and keeps it out.
 *
 * @internal
 */
export const keepUnder: <Handle>(args: KeepUnderArgs<Handle>) => Effect.Effect<Keeper<Handle> | undefined> = (
  args
) => keepUnderKept(args)

interface KeepUnderArgs<Handle> extends Omit<KeepArgs<Handle>, "sentAt"> {
  readonly session: LeaseState.LeaseState
}

const keepUnderKept = <Handle>(args: KeepUnderArgs<Handle>): Effect.Effect<Kept<Handle> | undefined> =>
  Effect.gen(function*() {
    const { options, record, session } = args
    const now = yield* monotonicMillis
    if (session.finished || LeaseDeadline.isPast(session.deadline, now)) {
      // Nobody may rely on it: give it back, in the background.
      const what = args.permits === undefined ? `"${record.name}"` : `permits of semaphore "${record.name}"`
      yield* Background.fork(
        giveBack(
          args.store,
          { name: record.name, owner: record.owner!, fence: record.fence },
          (reason) =>
            `could not give back ${what}, acquired as its lease session was lost (${reason}); the session's end lets ` +
            `others take it over`
        )
      )
      return undefined
    }
    const state = LeaseState.make({
      record,
      users: args.users,
      deadline: session.deadline,
      keptSince: args.keptSince ?? now,
      permits: args.permits
    })
    state.session = session
    const members = session.members ??= new Set()
    members.add(state)
    const sessionStatus = session.status.getUnsafe()
    if (sessionStatus._tag === "AtRisk") yield* state.status.set(sessionStatus)
    const kept = new Kept<Handle>(
      state,
      args.store,
      undefined,
      options.safetyMarginMs,
      options.leaseMs,
      leavingSession(members, state, args.onEnd)
    )
    kept.lease = args.handle(state)
    return kept
  })

/**
 * What ends a lease under a session: leaving the session's members, then `onEnd`. Made apart from `keepUnder`, so that
 * it closes over these three alone and not over everything the acquire passed, for as long as the lease is held.
 */
const leavingSession = (
  members: Set<LeaseState.LeaseState>,
  state: LeaseState.LeaseState,
  onEnd: () => void
) =>
() => {
  members.delete(state)
  onEnd()
}

/**
 * Starts keeping a lock's `record` acquired under a lease session (see `keepUnder`), with a `Lease` as its handle.
 *
 * @internal
 */
export const startUnder = (args: {
  readonly store: LockStore.LockStore
  readonly record: LockRecord
  readonly options: Options.Resolved
  readonly keptSince?: number | undefined
  readonly users: LeaseUsers.LeaseUsers
  readonly onEnd: () => void
  readonly session: LeaseState.LeaseState
}): Effect.Effect<Keeper | undefined> => {
  const { options, record, store } = args
  return Effect.map(
    keepUnderKept({
      ...args,
      store: LeaseStore.ofLock(store),
      handle: (state) => new Lease(state, record, record.holder ?? options.holder, store, options)
    }),
    (kept): Keeper | undefined => {
      if (kept !== undefined) Lease.setKeeper(kept.lease, kept)
      return kept
    }
  )
}
