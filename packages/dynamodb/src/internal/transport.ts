/**
 * One DynamoDB request as the store makes it: abortable, bounded by a timeout, retried on transient failures with
 * jittered exponential backoff, with a conditional-check failure returned as a value, and every other failure
 * turned into a `LockStoreError`.
 *
 * @internal
 */
import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb"
import type { LockStoreError, StoreOperation } from "@leasehold/lock/LockError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as ClientInternal from "./client.js"
import * as ClockSkew from "./clockSkew.js"
import * as Failure from "./failure.js"

/** @internal */
export interface Transport {
  readonly client: DynamoDBClient
  readonly tableName: string
  readonly expectedKeySchema: string
  readonly requestTimeout: Duration.Duration
  readonly maxRetries: number
  readonly retryBaseDelay: Duration.Duration
  /** Fed by every response's `Date` header when set. */
  readonly skew: ClockSkew.Monitor | undefined
}

/** @internal */
export interface Call {
  readonly operation: StoreOperation
  /** The DynamoDB action, e.g. "UpdateItem". */
  readonly action: string
}

/** @internal */
export type Response<Out> =
  | { readonly _tag: "Ok"; readonly output: Out; readonly attempts: number }
  | {
    readonly _tag: "ConditionFailed"
    /** The item as it was (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), when the server returned it. */
    readonly item: Record<string, AttributeValue> | undefined
    readonly attempts: number
  }

type Handler = (args: any) => Promise<any>

/**
 * The structural part of an SDK command we touch: its own middleware stack, which the SDK merges with the client's
 * on send. Adding to it never changes the client, which may be the user's.
 *
 * @internal
 */
export interface Probeable {
  readonly middlewareStack: {
    add(
      middleware: (next: Handler, context: any) => Handler,
      options: { readonly step: "deserialize"; readonly name: string; readonly priority: "low" }
    ): void
  }
}

/** @internal */
export type Attempt<Out> = (probe: <C extends Probeable>(command: C) => C, signal: AbortSignal) => Promise<Out>

// Timeouts and backoff are about real time on the wire, not about lease time: they run on the live clock even when a
// test drives the fiber's clock with TestClock (a request in flight during `TestClock.adjust` must not time out, and a
// backoff must not wait for the test to move time). Lease arithmetic and skew samples use the fiber's clock.
/** @internal */
export const liveClock = Clock.make()

const headerOf = (headers: unknown, name: string): string | undefined => {
  if (typeof headers !== "object" || headers === null) return undefined
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === "string") return value
  }
  return undefined
}

const installProbe = (skew: ClockSkew.Monitor, clock: Clock.Clock) => <C extends Probeable>(command: C): C => {
  // Low priority in the deserialize step puts this next to the HTTP handler, inside the SDK's deserializer: it sees
  // the raw response of every attempt, including the ones the deserializer turns into errors.
  command.middlewareStack.add(
    (next) => async (args) => {
      const sentAt = clock.unsafeCurrentTimeMillis()
      const result = await next(args)
      skew.observe(sentAt, clock.unsafeCurrentTimeMillis(), headerOf(result?.response?.headers, "date"))
      return result
    },
    { step: "deserialize", name: "leaseholdClockSkewProbe", priority: "low" }
  )
  return command
}

const identity = <C extends Probeable>(command: C): C => command

/**
 * Sends one request (a fresh command per attempt, built by `attempt`).
 *
 * @internal
 */
export const send = <Out>(transport: Transport, call: Call, attempt: Attempt<Out>): Effect.Effect<
  Response<Out>,
  LockStoreError
> =>
  Effect.clockWith((clock) =>
    Effect.suspend(() => {
      const probe = transport.skew === undefined ? identity : installProbe(transport.skew, clock)
      let attempts = 0
      const once = Effect.suspend(() => {
        attempts++
        return Effect.tryPromise({ try: (signal) => attempt(probe, signal), catch: (cause) => cause })
      }).pipe(
        Effect.map((output): Response<Out> => ({ _tag: "Ok", output, attempts })),
        Effect.timeoutFail({
          duration: transport.requestTimeout,
          onTimeout: () => new Failure.RequestTimedOut(Duration.toMillis(transport.requestTimeout))
        }),
        Effect.catchIf(
          Failure.isConditionalCheckFailed,
          (error): Effect.Effect<Response<Out>> =>
            Effect.succeed({
              _tag: "ConditionFailed",
              item: (error.Item ?? undefined) as Record<string, AttributeValue> | undefined,
              attempts
            })
        )
      )
      const schedule = Schedule.exponential(transport.retryBaseDelay, 2).pipe(
        Schedule.jittered,
        Schedule.intersect(Schedule.recurs(transport.maxRetries))
      )
      return once.pipe(
        Effect.retry({ schedule, while: Failure.isTransient }),
        Effect.withClock(liveClock),
        Effect.catchAll((error) =>
          Effect.flatMap(ClientInternal.describeLocation(transport.client), (location) =>
            Effect.fail(Failure.toStoreError(error, {
              operation: call.operation,
              action: call.action,
              tableName: transport.tableName,
              expectedKeySchema: transport.expectedKeySchema,
              location,
              attempts
            })))
        )
      )
    })
  )
