/**
 * Names at the edge of what a DynamoDB table can key, through every public way a name enters (`Lock`, `TypedLock`,
 * `LeaderElection`, a hand-off's resume, `Semaphore`): a name that fits the key is accepted, one a byte over fails with
 * `LockConfigError` before any request, in each key layout. Without a prefix `#` and `\` are escaped and take two
 * bytes of the key; with one (or with a sort key) the name is keyed as it is.
 *
 * The limits are written out here from DynamoDB's key limits, not read from the store, so that the test checks them.
 */
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import * as LeaderElection from "@leasehold/lock/LeaderElection"
import * as Lock from "@leasehold/lock/Lock"
import type { LockConfigError } from "@leasehold/lock/LockError"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Semaphore from "@leasehold/lock/Semaphore"
import * as TypedLock from "@leasehold/lock/TypedLock"
import * as Utf8 from "@leasehold/lock/Utf8"
import type * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Option, Schema, Stream } from "effect"
import { clockNow } from "./semaphoreModule.js"
import { counted, inRealTime, makeStore, makeTableAndStore } from "./support.js"

/** What a name takes as a key: its UTF-8 bytes, and one more for each `#` and `\` where the layout escapes them. */
const keyBytes = (name: string, escapes: boolean): number =>
  Utf8.byteLength(name) + (escapes ? (name.match(/[#\\]/g) ?? []).length : 0)

/** `unit` repeated, then plain ASCII, to exactly `bytes` as a key. */
const filled = (unit: string, bytes: number, escapes: boolean): string => {
  let name = ""
  while (keyBytes(name + unit, escapes) <= bytes) name += unit
  name += "a".repeat(bytes - keyBytes(name, escapes))
  expect(keyBytes(name, escapes)).toBe(bytes)
  return name
}

/**
 * Names of exactly `bytes` as a key: all `#`, all `\`, and a mix of the escaped characters with characters of two,
 * three and four UTF-8 bytes (the last a surrogate pair in UTF-16).
 */
const namesOf = (bytes: number, escapes: boolean): ReadonlyArray<string> => [
  filled("#", bytes, escapes),
  filled("\\", bytes, escapes),
  filled("#é€😀\\", bytes, escapes)
]

interface Layout {
  readonly label: string
  readonly store: LockStore.LockStore
  /** The most a lock name may take as a key in this layout, and a semaphore's (one less: its key has a marker). */
  readonly lockBytes: number
  readonly escapes: boolean
}

const configError = (error: unknown): LockConfigError => {
  const { _tag, message, option } = error as { _tag?: string; message?: string; option?: string }
  expect(`${_tag}: ${message}`).toMatch(/^LockConfigError: /)
  expect(option).toBe("name")
  return error as LockConfigError
}

/** Fails with `LockConfigError` on the name, and the server saw no request. */
const refusedUnsent = <A, E>(self: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    // Real time, whatever the test's clock: a bound on something that should fail at once, but might go on forever.
    const stuck = Effect.andThen(
      inRealTime(Effect.sleep("10 seconds")),
      Effect.die("neither refused nor done within 10 seconds")
    )
    const { requests, result } = yield* counted(Effect.flip(Effect.raceFirst(self, stuck)))
    expect(requests).toEqual({})
    return configError(result)
  })

const Counter = TypedLock.make(Schema.Struct({ n: Schema.Number }))

/** Every public way a lock name enters, each expected to refuse it before any request. */
const lockEntries = (name: string) => [
  Effect.scoped(Lock.acquire(name)),
  Lock.withLock(name, Effect.void),
  Effect.scoped(Counter.acquire(name, { n: 1 })),
  Counter.withLock(name, { n: 1 }, Effect.void),
  Counter.holder(name),
  LeaderElection.run(name, () => Effect.void),
  Stream.runDrain(LeaderElection.leader(name)),
  Lock.withResumed({
    _tag: "LeaseHandoff",
    name,
    owner: "a".repeat(32),
    fence: 1,
    holder: "elsewhere",
    leaseMs: 10_000,
    leaseUntil: Date.now() + 60_000
  }, Effect.void)
]

const semaphoreEntries = (name: string) => [
  Effect.scoped(Semaphore.acquire(name, { limit: 2 })),
  Semaphore.withPermits(name, Effect.void, { limit: 2 }),
  Semaphore.inspect(name)
]

const checkLayout = (layout: Layout) =>
  Effect.gen(function*() {
    const { escapes, lockBytes, store } = layout
    const semaphoreBytes = lockBytes - 1
    const withStore = <A, E>(self: Effect.Effect<A, E, LockStore.LockStore>) =>
      Effect.provideService(self, LockStore.LockStore, store)

    for (const name of namesOf(lockBytes, escapes)) {
      // At the limit: the lock is taken and given back, and the store has its record under that name.
      expect(yield* withStore(Lock.withLock(name, Effect.succeed("held")))).toBe("held")
      expect(Option.getOrThrow(yield* store.inspect(name)).name).toBe(name)
      expect(yield* withStore(LeaderElection.run(name, (term) => Effect.succeed(term.name)))).toBe(name)
      // A byte over: refused before any request, wherever it enters, with the size that counts and the limit.
      const over = name + "a"
      for (const entry of lockEntries(over)) {
        const { message } = yield* refusedUnsent(withStore(entry))
        expect(message, layout.label).toContain(
          escapes ? `takes ${lockBytes + 1} UTF-8 bytes as a key` : `is ${lockBytes + 1} UTF-8 bytes`
        )
        expect(message, layout.label).toContain(`limit of ${lockBytes}`)
        if (escapes) expect(message, layout.label).toContain(`"#" and "\\" in a name take two bytes each`)
      }
    }
    // Starting with "s": in sort-key mode the semaphore "x" has the key of the lock "#x", which is taken above.
    for (const name of namesOf(semaphoreBytes - 1, escapes).map((name) => "s" + name)) {
      expect(yield* withStore(Semaphore.withPermits(name, Effect.succeed("held"), { limit: 2 }))).toBe("held")
      expect(Option.getOrThrow(yield* withStore(Semaphore.inspect(name))).name).toBe(name)
      for (const entry of semaphoreEntries(name + "a")) {
        const { message } = yield* refusedUnsent(withStore(entry))
        expect(message, layout.label).toContain(`semaphore names of up to ${semaphoreBytes} bytes`)
        if (escapes) expect(message, layout.label).toContain(`"#" and "\\" in a name take two bytes each`)
      }
    }
  })

export const nameBudgetBehaviour = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>) => {
  it.effect(
    "without a prefix, a name takes 2048 bytes as a key, \"#\" and \"\\\" two each; a semaphore's one less",
    () =>
      Effect.gen(function*() {
        yield* clockNow
        const { store } = yield* makeTableAndStore()
        yield* checkLayout({ label: "no prefix", store, lockBytes: 2048, escapes: true })

        // 1,025 "#" are 1,025 bytes, but 2,050 as a key; 1,024 "#" are a semaphore's key of 2,049.
        const lock = yield* refusedUnsent(
          Lock.withLock("#".repeat(1025), Effect.void).pipe(
            Effect.provideService(LockStore.LockStore, store)
          )
        )
        expect(lock.message).toContain("takes 2050 UTF-8 bytes as a key")
        expect(lock.message).toContain("the name itself is 1025 UTF-8 bytes")
        expect(lock.message).toContain(`"#" and "\\" in a name take two bytes each`)
        const semaphore = yield* refusedUnsent(
          Semaphore.withPermits("#".repeat(1024), Effect.void, { limit: 2 }).pipe(
            Effect.provideService(LockStore.LockStore, store)
          )
        )
        expect(semaphore.message).toContain("takes 2049 UTF-8 bytes as a key")
        expect(semaphore.message).toContain("the name itself is 1024 UTF-8 bytes")
        expect(semaphore.message).toContain(`"#" and "\\" in a name take two bytes each`)
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect(
    "with a prefix, a name takes what the escaped prefix and its \"#\" leave, as it is; a semaphore's one less",
    () =>
      Effect.gen(function*() {
        yield* clockNow
        const { tableName } = yield* makeTableAndStore()
        // The prefix "jobs#" is keyed "jobs\##": 7 bytes of the 2048.
        const store = yield* makeStore(tableName, { prefix: "jobs#" })
        yield* checkLayout({ label: "prefix", store, lockBytes: 2041, escapes: false })
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect(
    "with a sort key, a name takes 1024 bytes as it is, whatever the prefix; a semaphore's one less",
    () =>
      Effect.gen(function*() {
        yield* clockNow
        const { store, tableName } = yield* makeTableAndStore({ sortKey: "name" })
        yield* checkLayout({ label: "sort key", store, lockBytes: 1024, escapes: false })
        const family = yield* makeStore(tableName, { sortKey: "name", prefix: "#".repeat(1500) })
        yield* checkLayout({ label: "sort key, long prefix", store: family, lockBytes: 1024, escapes: false })
      }).pipe(Effect.scoped),
    60_000
  )
}
