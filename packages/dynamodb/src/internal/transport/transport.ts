/**
 * One DynamoDB request as the store makes it: abortable, bounded by a timeout, retried on transient failures with
 * jittered exponential backoff, with a conditional-check failure returned as a value, and every other failure
 * turned into a `LockStoreError`.
 *
 * Every lock operation goes through here, so the path of a request that succeeds (or fails its condition) on the
 * first attempt is kept to one callback effect around the SDK's promise: the timeout is a plain timer that aborts the
 * request, not a fiber racing it. Effect takes over again only for what is rare: a backoff, or building an error.
 *
 * A finished program must not be kept alive by what it leaves behind. A call of background work (the calling fiber's
 * clock is `LockStore.isBackgroundClock`) times out and backs off on timers that do not keep the process alive; a
 * request in flight still does, until its timeout or its caller gives up on it. And when the store's scope closes
 * (the end of the program it was provided to) its requests in flight are abandoned and no new one is sent.
 *
 * @internal
 */
import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb"
import type * as Calls from "@leasehold/core/dynamodb/Calls"
import * as RequestAttempt from "@leasehold/core/dynamodb/RequestAttempt"
import * as Retry from "@leasehold/core/dynamodb/Retry"
import * as SkewMonitor from "@leasehold/core/dynamodb/SkewMonitor"
import { LockStoreError, type StoreOperation } from "@leasehold/lock/LockError"
import { isBackgroundClock } from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as EffectLine from "../effectLine.js"
import * as ClientInternal from "./client.js"
import * as ClockSkew from "./clockSkew.js"
import * as Failure from "./failure.js"

/** @internal */
export interface Transport {
  readonly client: DynamoDBClient
  readonly tableName: string
  readonly expectedKeySchema: string
  readonly requestTimeoutMs: number
  readonly maxRetries: number
  readonly retryBaseDelayMs: number
  /** Fed by every response's `Date` header when set. */
  readonly skew: ClockSkew.Monitor | undefined
  /** A store's: once its scope closes, nothing more is sent. The table helpers, which end with their call, have none. */
  readonly lifetime?: Lifetime | undefined
}

/**
 * The requests in flight of one store, and whether its scope has closed (the core's `RequestAttempt.Lifetime`).
 *
 * @internal
 */
export type Lifetime = RequestAttempt.Lifetime

/**
 * A store's lifetime, which ends with the scope: its requests in flight are aborted (their calls fail, not retried),
 * and later calls fail at once. Made after the client, so that it ends before a client the store built is destroyed.
 *
 * @internal
 */
export const makeLifetime: Effect.Effect<Lifetime, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(RequestAttempt.makeLifetime),
  (lifetime) => Effect.sync(() => RequestAttempt.end(lifetime))
)

/**
 * One kind of request, as its errors name it (the core's `Calls.Call`, of a store operation).
 *
 * @internal
 */
export interface Call extends Calls.Call {
  readonly operation: StoreOperation
}

/** @internal */
export type Response<Out> =
  | { readonly _tag: "Ok"; readonly output: Out; readonly attempts: number }
  | {
    readonly _tag: "ConditionFailed"
    /** The item as it was (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), when the server returned it. */
    readonly item: Record<string, AttributeValue> | undefined
    readonly attempts: number
    /** Whether an attempt before this one may have been applied: then the condition may have failed on its write. */
    readonly earlierMayHaveApplied: boolean
  }

/** @internal */
export type Attempt<Out> = (probe: SkewMonitor.Probe, signal: AbortSignal) => Promise<Out>

// Timeouts and backoff are about real time on the wire, not about lease time: they run on the live clock even when a
// test drives the fiber's clock with TestClock (a request in flight during `TestClock.adjust` must not time out, and a
// backoff must not wait for the test to move time). Lease arithmetic and skew samples use the fiber's clock.
/** @internal */
export const liveClock: Clock.Clock = EffectLine.liveClock

/** The clock-skew probe of a monitor for a fiber's clock, made once per pair. */
const installProbe = SkewMonitor.probeCache(ClockSkew.clockReads)

/**
 * Sends one request (a fresh command per attempt, built by `attempt`). `clock` is the fiber's, for the skew samples
 * and to tell background work (see the module's notes); a caller that already holds it saves looking it up again.
 * The operations of a lease (its release, above all: the only calls background work makes) pass it.
 *
 * @internal
 */
export const send = <Out>(transport: Transport, call: Call, attempt: Attempt<Out>, clock?: Clock.Clock): Effect.Effect<
  Response<Out>,
  LockStoreError
> => {
  const skew = transport.skew
  const background = clock !== undefined && isBackgroundClock(clock)
  if (skew === undefined) return sendWith(transport, call, attempt, SkewMonitor.noProbe, background)
  if (clock !== undefined) return sendWith(transport, call, attempt, installProbe(skew, clock), background)
  return Effect.clockWith((clock) => sendWith(transport, call, attempt, installProbe(skew, clock), false))
}

const closedError = (transport: Transport, call: Call, inFlight: boolean) =>
  new LockStoreError({
    operation: call.operation,
    retryable: false,
    mayHaveApplied: inFlight,
    message: Failure.closedMessage(call.action, transport.tableName, inFlight)
  })

// The steps of a request are module functions, not closures made per request: every acquire and release sends one.

const fail = (transport: Transport, call: Call, error: unknown, attempts: number, earlierMayHaveApplied: boolean) =>
  Effect.flatMap(
    ClientInternal.describeLocation(transport.client),
    (location) =>
      Effect.fail(Failure.toStoreError(error, {
        operation: call.operation,
        action: call.action,
        tableName: transport.tableName,
        expectedKeySchema: transport.expectedKeySchema,
        location,
        attempts,
        earlierMayHaveApplied
      }))
  )

/**
 * The jittered wait before a request's next attempt, `attempts` counting it. Background work sleeps on its own clock,
 * the live clock's twin whose timers do not keep the process alive.
 *
 * @internal
 */
export const backoff = (transport: Transport, attempts: number, background: boolean) =>
  Effect.flatMap(
    EffectLine.nextBetween(Retry.jitterMin, Retry.jitterMax),
    (jitter) => {
      const delay = Duration.millis(Retry.backoffMs(transport.retryBaseDelayMs, attempts, jitter))
      return background ? Effect.sleep(delay) : Effect.sleep(delay).pipe(EffectLine.withClock(liveClock))
    }
  )

const sendWith = <Out>(
  transport: Transport,
  call: Call,
  attempt: Attempt<Out>,
  probe: SkewMonitor.Probe,
  background: boolean,
  attempts = 1,
  earlierMayHaveApplied = false
): Effect.Effect<Response<Out>, LockStoreError> =>
  EffectLine.callback<Response<Out>, LockStoreError>((resume) => {
    const cancel = RequestAttempt.run(
      transport,
      { attempts, earlierMayHaveApplied, reportsUnknownOutcomes: call.reportsUnknownOutcomes === true, background },
      (signal) => attempt(probe, signal),
      (outcome) => {
        switch (outcome._tag) {
          case "Ok":
            return resume(Effect.succeed({ _tag: "Ok", output: outcome.output, attempts }))
          case "ConditionFailed":
            return resume(Effect.succeed({
              _tag: "ConditionFailed",
              item: outcome.item as Record<string, AttributeValue> | undefined,
              attempts,
              earlierMayHaveApplied
            }))
          case "Closed":
            return resume(Effect.fail(closedError(transport, call, outcome.inFlight)))
          case "Retry":
            return resume(
              Effect.andThen(
                backoff(transport, attempts + 1, background),
                sendWith(transport, call, attempt, probe, background, attempts + 1, outcome.mayHaveApplied)
              )
            )
          case "Fail":
            return resume(fail(transport, call, outcome.error, attempts, earlierMayHaveApplied))
        }
      }
    )
    return Effect.sync(cancel)
  })
