/**
 * A demo worker: its own OS process, competing with the others for one lock. Each turn it runs a critical section
 * under `Lock.withLock`: a fenced read of the ledger, some work, then a write of the value + 1 carrying its fencing
 * token. It reports every step as a JSON line on stdout (`Protocol.WorkerEvent`).
 *
 * The write step models a request already on the wire: once sent it can not be called back, so it is uninterruptible.
 * When the parent orders "slow-write", the next write stays in flight for `slowWriteMs` before it reaches the ledger;
 * the parent SIGSTOPs the worker during that time, past its lease, and SIGCONTs it after another worker has taken the
 * lock. The late write then reaches the ledger with an old fence and is refused, and the lost lease interrupts the
 * section right after: interruption stops what can be stopped, the fence catches what was already on its way.
 *
 * Run as `node --import tsx Worker.ts` (or bundled) with the settings in `LEASEHOLD_DEMO_WORKER`. It is one source for
 * both Effect lines: the Effect 4 line's copy, in `effect4/packages/demo`, runs on effect 4 and that line's packages.
 *
 * @since 1.0.0
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import type { Lease } from "@leasehold/lock/Lease"
import * as Lock from "@leasehold/lock/Lock"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as EffectLine from "./effectLine.js"
import * as Ledger from "./Ledger.js"
import * as Protocol from "./Protocol.js"

/** The ledger refused us: a higher fence got there first. Ends the section; the lost lease is reported separately. */
class Fenced extends Data.TaggedError("Fenced")<{ readonly step: "read" | "write" }> {}

const emit = (event: Protocol.WorkerEvent) => Console.log(Protocol.encodeEvent(event))

interface Commands {
  readonly go: Effect.Effect<void>
  readonly stop: Effect.Effect<void>
  readonly stopped: Effect.Effect<boolean>
  /** Takes the "slow-write" order, if one is pending. */
  readonly takeSlowWrite: Effect.Effect<boolean>
  /** Completes when stdin closes: the parent is gone. */
  readonly gone: Effect.Effect<void>
}

const watchCommands: Effect.Effect<Commands, never, Scope.Scope> = Effect.gen(function*() {
  const go = yield* Deferred.make<void>()
  const stop = yield* Deferred.make<void>()
  const slow = yield* Ref.make(false)
  const commands: Record<Protocol.WorkerCommand, Effect.Effect<unknown>> = {
    go: Deferred.succeed(go, undefined),
    stop: Deferred.succeed(stop, undefined),
    "slow-write": Ref.set(slow, true)
  }
  const gone = yield* NodeProgram.watchStdin((line) =>
    Object.hasOwn(commands, line) ? commands[line as Protocol.WorkerCommand] : Effect.void
  )
  return {
    go: Deferred.await(go),
    stop: Deferred.await(stop),
    stopped: Deferred.isDone(stop),
    takeSlowWrite: Ref.getAndSet(slow, false),
    gone
  }
})

const program = Effect.gen(function*() {
  const settings = yield* NodeProgram.readSettings(Protocol.settingsVariable, Protocol.WorkerSettings)
  const { worker } = settings
  const commands = yield* watchCommands
  const client = yield* Effect.acquireRelease(
    Effect.sync(() => new DynamoDBClient({ ...settings.clientConfig, maxAttempts: 1 })),
    (client) => Effect.sync(() => client.destroy())
  )
  const ledger = Ledger.make(client, settings.tableName, settings.ledgerKey)
  const now = Clock.currentTimeMillis
  const lockOptions: Lock.LockOptions = {
    wait: "forever",
    lease: Duration.millis(settings.leaseMs),
    maxClockSkew: Duration.millis(settings.maxClockSkewMs),
    holder: `worker ${worker} (pid ${process.pid})`
  }
  const inSection = yield* Ref.make(false)
  const committed = yield* Ref.make(0)

  // The section under `lease`, whose fence it writes with; without the lock (--unsafe), fence 0 passes the ledger's
  // condition every time.
  const section = (lease: Lease | undefined) =>
    Effect.gen(function*() {
      yield* Ref.set(inSection, true)
      const fence = lease?.fence ?? 0
      const start = yield* now
      yield* emit({ _tag: "Entered", worker, fence, at: start })
      // Report "at risk" and recovery as they happen; the loss itself is reported from withLock's failure.
      if (lease !== undefined) {
        yield* lease.changes.pipe(
          Stream.drop(1),
          Stream.runForEach((status) =>
            status._tag === "AtRisk" || status._tag === "Held"
              ? Effect.flatMap(now, (at) =>
                emit({
                  _tag: "Status",
                  worker,
                  fence,
                  status: status._tag === "AtRisk" ? "at-risk" : "held",
                  remainingMs: status._tag === "AtRisk" ? status.remainingMs : 0,
                  at
                }))
              : Effect.void
          ),
          Effect.forkScoped
        )
      }
      const read = yield* ledger.fencedRead(fence)
      if (typeof read !== "number") {
        yield* emit({ _tag: "WriteRejected", worker, fence, step: "read", at: yield* now })
        return yield* new Fenced({ step: "read" })
      }
      yield* emit({ _tag: "Read", worker, fence, value: read, at: yield* now })
      yield* Effect.sleep(Duration.millis(settings.holdMs))
      const slow = yield* commands.takeSlowWrite
      const writeSentAt = yield* now
      yield* emit({ _tag: "Writing", worker, fence, value: read + 1, slow, at: writeSentAt })
      // A request on the wire can not be called back: the write step, and the report of its outcome, finish even if the
      // lease is lost meanwhile. The section is interrupted right after.
      const written = yield* Effect.uninterruptible(
        Effect.gen(function*() {
          if (slow) yield* Effect.sleep(Duration.millis(settings.slowWriteMs))
          const outcome = yield* ledger.write(fence, read + 1, worker)
          if (outcome === "Accepted") {
            yield* Ref.update(committed, (n) => n + 1)
            yield* emit({ _tag: "Committed", worker, fence, start, writeSentAt, end: yield* now, read })
          } else {
            yield* emit({ _tag: "WriteRejected", worker, fence, step: "write", at: yield* now })
          }
          return outcome
        })
      )
      if (written !== "Accepted") return yield* new Fenced({ step: "write" })
    }).pipe(Effect.scoped, Effect.ensuring(Ref.set(inSection, false)))

  // "stop" interrupts a worker that is waiting for the lock, never one inside its section.
  const stopWhileWaiting = Effect.andThen(
    commands.stop,
    Effect.flatMap(Ref.get(inSection), (busy) => busy ? Effect.never : Effect.void)
  )

  const turn = Effect.gen(function*() {
    yield* emit({ _tag: "Waiting", worker, at: yield* now })
    // The turn's failure, if it failed; undefined if it completed or was stopped while waiting.
    const failure = yield* Effect.raceFirst(
      Effect.match(settings.useLock ? Lock.withLock(settings.lockName, section, lockOptions) : section(undefined), {
        onFailure: (error) => error,
        onSuccess: () => undefined
      }),
      Effect.as(stopWhileWaiting, undefined)
    )
    if (failure?._tag === "LockLost") {
      yield* emit({ _tag: "Lost", worker, fence: failure.fence, reason: failure.reason, at: yield* now })
    } else if (failure !== undefined && failure._tag !== "Fenced") {
      yield* Effect.logWarning(`turn failed: ${failure.message}`)
    }
    // A breather between turns, so that the lock goes round the workers instead of back to the last holder.
    yield* Effect.sleep(Duration.millis(settings.holdMs))
  })

  const run = Effect.gen(function*() {
    yield* commands.go
    while (!(yield* commands.stopped)) yield* turn
    yield* emit({ _tag: "Done", worker, committed: yield* Ref.get(committed) })
  }).pipe(
    Effect.provide(DynamoLockStore.layer({
      tableName: settings.tableName,
      clientConfig: settings.clientConfig
    }))
  )

  yield* emit({ _tag: "Ready", worker, pid: process.pid, effect: EffectLine.effectVersion(), node: process.version })
  // Once stdin closes, give the run a moment to finish the section in progress, then go.
  const parentGone = Effect.andThen(commands.gone, Effect.sleep(Duration.seconds(5)))
  yield* Effect.raceFirst(run, parentGone)
}).pipe(Effect.scoped)

NodeProgram.runMain(EffectLine.warningsAndAbove(program))
