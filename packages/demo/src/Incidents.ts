/**
 * The scripted incidents, run while the workers work: a holder SIGKILLed in its section, a holder SIGSTOPped past its
 * lease with its write in flight, and the server unreachable for a moment. Each waits for the situation it needs
 * (a worker inside its section), acts, watches what follows, and returns what it saw for the verdict.
 *
 * @since 1.0.0
 */
import type * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Pool from "./Pool.js"
import type * as Protocol from "./Protocol.js"
import * as State from "./State.js"
import type * as Verdict from "./Verdict.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Kind = "kill" | "pause" | "outage"

/**
 * @since 1.0.0
 * @category constants
 */
export const kinds: ReadonlyArray<Kind> = ["kill", "pause", "outage"]

/**
 * @since 1.0.0
 * @category models
 */
export interface Context {
  readonly state: SubscriptionRef.SubscriptionRef<State.State>
  readonly workers: ReadonlyArray<Pool.Worker>
  readonly server: DynamoServer.Service
  readonly leaseMs: number
  readonly maxClockSkewMs: number
}

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

const log = (context: Context, text: string) =>
  Effect.flatMap(now, (at) => SubscriptionRef.update(context.state, (state) => State.addLog(state, at, text)))

const setWorker = (context: Context, id: number, workerState: State.WorkerState) =>
  SubscriptionRef.update(context.state, (state) => State.setWorkerState(state, id, workerState))

const alive = (state: State.State, id: number) =>
  state.workers.some((worker) =>
    worker.id === id && worker.state !== "killed (SIGKILL)" && worker.state !== "done" &&
    worker.state !== "paused (SIGSTOP)"
  )

/** The first report from index `from` on that `match` picks, within `timeout`. */
const awaitEvent = <A extends Protocol.WorkerEvent>(
  context: Context,
  from: number,
  match: (event: Protocol.WorkerEvent, state: State.State) => event is A,
  timeout: Duration.DurationInput
): Effect.Effect<Option.Option<A>> =>
  context.state.changes.pipe(
    Stream.filterMap((state) => Option.fromNullable(state.events.slice(from).find((event) => match(event, state)))),
    Stream.runHead,
    Effect.timeoutTo({ duration: timeout, onTimeout: Option.none, onSuccess: (found) => found })
  )

const mark = (context: Context) => Effect.map(SubscriptionRef.get(context.state), (state) => state.events.length)

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

type Tagged<T extends Protocol.WorkerEvent["_tag"]> = Extract<Protocol.WorkerEvent, { readonly _tag: T }>

const takeoverWait = (context: Context) => Duration.millis(context.leaseMs + context.maxClockSkewMs + 10_000)

/**
 * SIGKILL a worker right after it read the ledger inside its section, then time how long until another worker
 * enters with a higher fence.
 *
 * @since 1.0.0
 * @category incidents
 */
export const kill = (context: Context): Effect.Effect<Verdict.Incident> =>
  Effect.gen(function*() {
    const from = yield* mark(context)
    const inside = yield* awaitEvent(
      context,
      from,
      (event, state): event is Tagged<"Read"> => event._tag === "Read" && alive(state, event.worker),
      "15 seconds"
    )
    if (Option.isNone(inside)) return { _tag: "Skipped", kind: "kill", why: "no worker entered its section" } as const
    const victim = inside.value
    yield* context.workers[victim.worker]!.signal("SIGKILL")
    const killedAt = yield* now
    yield* setWorker(context, victim.worker, "killed (SIGKILL)")
    yield* log(context, `INCIDENT: SIGKILL worker ${victim.worker} inside its section (fence ${victim.fence})`)
    const afterKill = yield* mark(context)
    const takeover = yield* awaitEvent(
      context,
      afterKill,
      (event): event is Tagged<"Entered"> =>
        event._tag === "Entered" && event.worker !== victim.worker && event.fence > victim.fence,
      takeoverWait(context)
    )
    yield* Option.match(takeover, {
      onNone: () => log(context, "nobody took over from the killed worker"),
      onSome: (event) =>
        log(
          context,
          `worker ${event.worker} took over ${seconds(event.at - killedAt)} after the SIGKILL (fence ${event.fence}; ` +
            `bound lease + skew = ${seconds(context.leaseMs + context.maxClockSkewMs)})`
        )
    })
    return {
      _tag: "Kill",
      worker: victim.worker,
      fence: victim.fence,
      killedAt,
      takeover: Option.getOrUndefined(Option.map(takeover, (event) => ({
        worker: event.worker,
        fence: event.fence,
        at: event.at
      })))
    } as const
  })

/**
 * Order a live worker's next write to stay in flight, SIGSTOP it as soon as it is sent, keep it stopped until
 * another worker has taken the lock and read the ledger, then SIGCONT it: its lease is gone and its write is late.
 *
 * @since 1.0.0
 * @category incidents
 */
export const pause = (context: Context): Effect.Effect<Verdict.Incident> =>
  Effect.gen(function*() {
    const state = yield* SubscriptionRef.get(context.state)
    const candidates = state.workers.filter((worker) => alive(state, worker.id))
    const chosen = candidates[candidates.length - 1]
    if (chosen === undefined) return { _tag: "Skipped", kind: "pause", why: "no live worker" } as const
    const worker = context.workers[chosen.id]!
    const from = yield* mark(context)
    yield* worker.send("slow-write")
    const writing = yield* awaitEvent(
      context,
      from,
      (event): event is Tagged<"Writing"> => event._tag === "Writing" && event.worker === chosen.id && event.slow,
      "20 seconds"
    )
    if (Option.isNone(writing)) {
      return { _tag: "Skipped", kind: "pause", why: `worker ${chosen.id} never reached its write` } as const
    }
    yield* worker.signal("SIGSTOP")
    const stoppedAt = yield* now
    const { fence } = writing.value
    yield* setWorker(context, chosen.id, "paused (SIGSTOP)")
    yield* log(context, `INCIDENT: SIGSTOP worker ${chosen.id} with its ledger write (fence ${fence}) in flight`)
    const afterStop = yield* mark(context)
    const takeover = yield* awaitEvent(
      context,
      afterStop,
      (event): event is Tagged<"Read"> => event._tag === "Read" && event.worker !== chosen.id && event.fence > fence,
      takeoverWait(context)
    )
    yield* Option.match(takeover, {
      onNone: () => log(context, "nobody took over from the stopped worker"),
      onSome: (event) =>
        log(context, `worker ${event.worker} took the expired lock (fence ${event.fence}) and read the ledger`)
    })
    yield* worker.signal("SIGCONT")
    const resumedAt = yield* now
    yield* setWorker(context, chosen.id, "holding")
    yield* log(context, `INCIDENT: SIGCONT worker ${chosen.id} after ${seconds(resumedAt - stoppedAt)}`)
    // Let it find out, so that the view shows it; the verdict checks what it reported.
    yield* awaitEvent(
      context,
      afterStop,
      (event): event is Tagged<"Lost"> => event._tag === "Lost" && event.worker === chosen.id,
      "5 seconds"
    )
    return {
      _tag: "Pause",
      worker: chosen.id,
      fence,
      stoppedAt,
      resumedAt,
      takeoverFence: Option.getOrUndefined(Option.map(takeover, (event) => event.fence))
    } as const
  })

/**
 * Make the server stop answering (requests held, as by a hung server) while a worker holds the lock, for
 * `outageMs`, then answer again.
 *
 * @since 1.0.0
 * @category incidents
 */
export const outage = (context: Context, outageMs: number): Effect.Effect<Verdict.Incident> =>
  Effect.gen(function*() {
    if (!context.server.proxied) {
      return { _tag: "Skipped", kind: "outage", why: "the endpoint is not behind the pausable proxy (https)" } as const
    }
    const from = yield* mark(context)
    yield* awaitEvent(context, from, (event): event is Tagged<"Entered"> => event._tag === "Entered", "15 seconds")
    yield* context.server.pause
    const startedAt = yield* now
    yield* SubscriptionRef.update(context.state, (state) => ({ ...state, serverUp: false }))
    yield* log(context, `INCIDENT: server unreachable (requests held) for ${seconds(outageMs)}`)
    yield* Effect.sleep(Duration.millis(outageMs))
    yield* context.server.resume
    const endedAt = yield* now
    yield* SubscriptionRef.update(context.state, (state) => ({ ...state, serverUp: true }))
    yield* log(context, "server answering again")
    // What the outage caused shows up within a lease.
    yield* Effect.sleep(Duration.millis(context.leaseMs))
    return { _tag: "Outage", startedAt, endedAt } as const
  })
