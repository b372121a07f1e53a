/**
 * effect-distributed-lock (on the bench's DynamoDB backing) in the contention and takeover tables: a waiter retries
 * `tryAcquire` on its `acquireRetryPolicy`; a dead holder's permit is free once its TTL has passed by the waiter's
 * clock (the backing's condition). Its default policy polls every 100 ms; a responsive user shortens it.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { clientConfig, tables } from "../Contender.js"
import { type Driver, now } from "../ContentionDriver.js"
import type { Acquisition, ClientConfig } from "../Protocol.js"
import { DistributedSemaphore, layer } from "./EffectDistributedLock.js"

/** The poll interval Leasehold defaults to (lease / 10), jittered as Effect's `Schedule.jittered` does (×0.8–1.2). */
const pollMs = (leaseMs: number) => Math.round(leaseMs / 10)

const withMutex = <A, E>(
  config: ClientConfig,
  key: string,
  leaseMs: number,
  use: (mutex: Effect.Effect.Success<ReturnType<typeof DistributedSemaphore.make>>) => Effect.Effect<A, E>
): Promise<A> => {
  const client = new DynamoDBClient(clientConfig(config))
  return Effect.runPromise(
    Effect.flatMap(
      DistributedSemaphore.make(key, {
        limit: 1,
        ttl: Duration.millis(leaseMs),
        acquireRetryPolicy: Schedule.jittered(Schedule.spaced(Duration.millis(pollMs(leaseMs))))
      }),
      use
    ).pipe(Effect.provide(layer(client, tables.effectDistributedLock)))
  ).finally(() => client.destroy())
}

export const driver: Driver = {
  name: "effect-distributed-lock (bench's DynamoDB backing)",
  contentionSettings: "acquireRetryPolicy `Schedule.jittered(Schedule.spaced(lease / 10))` (30 ms ×0.8–1.2; its " +
    "default is 100 ms), refresh every ttl / 3 (its default)",
  leaseMs: (asked) => asked,
  takeoverModes: [
    {
      name: "ttl",
      settings: "polls every lease / 10 until the TTL has passed",
      boundMs: (leaseMs) => leaseMs + 1.2 * pollMs(leaseMs)
    }
  ],
  contend: (config, options) =>
    withMutex(config, options.key, options.leaseMs, (mutex) =>
      Effect.gen(function*() {
        const acquisitions: Array<Acquisition> = []
        while (Date.now() < options.endAt) {
          const askedAt = now()
          yield* mutex.withPermits(1)(
            Effect.zipRight(
              Effect.sync(() => acquisitions.push({ askedAt, enteredAt: now() })),
              Effect.sleep(Duration.millis(options.holdMs))
            )
          )
        }
        return acquisitions
      })),
  hold: (config, { key, leaseMs }, onHeld) =>
    withMutex(
      config,
      key,
      leaseMs,
      (mutex) => mutex.withPermits(1)(Effect.zipRight(Effect.sync(onHeld), Effect.never))
    ),
  takeOver: (config, { key, leaseMs }, onEntered) =>
    withMutex(config, key, leaseMs, (mutex) => mutex.withPermits(1)(Effect.sync(onEntered)))
}
