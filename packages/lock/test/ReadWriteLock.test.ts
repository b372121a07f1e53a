import { describe, expect, it } from "@effect/vitest"
import { LockStore, ReadWriteLock } from "@leasehold/lock"
import { Clock, Effect, Fiber, Option } from "effect"
import { forkChild, TestClock } from "./effectLine.js"
import { repeatTimes, settle, sharedMemory } from "./support.js"

/** Moves the clock in steps of 50 ms, letting the fibers it wakes finish their work in between. */
const advance = (ms: number) => Effect.andThen(TestClock.adjust("50 millis"), settle).pipe(repeatTimes(ms / 50))

/** One process's view of the shared store. */
const inProcess = (store: LockStore.LockStore) =>
  Effect.provideService(LockStore.LockStore, LockStore.processView(store))

const waiting = { wait: "forever", pollInterval: "100 millis" } as const

/** A section that notes when it ran, on the test clock, and how many sections of each mode ran beside it. */
const tracker = () => {
  const inside = { read: 0, write: 0 }
  const overlaps: Array<string> = []
  const runs: Array<{ readonly who: string; readonly at: number }> = []
  const section = (who: string, mode: ReadWriteLock.Mode, ms: number) =>
    Effect.gen(function*() {
      inside[mode] += 1
      if (inside.write > 1 || (inside.write === 1 && inside.read > 0)) overlaps.push(who)
      runs.push({ who, at: yield* Clock.currentTimeMillis })
      yield* Effect.sleep(ms)
    }).pipe(Effect.ensuring(Effect.sync(() => inside[mode] -= 1)))
  const startOf = (who: string) => runs.find((run) => run.who === who)?.at
  return { inside, overlaps, runs, section, startOf }
}

describe("ReadWriteLock", () => {
  it.effect("many readers at once, a writer alone: readers share, and the writer waits for them and they for it", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const track = tracker()
      const read = (who: string) =>
        forkChild(
          ReadWriteLock.withReadLock("doc", track.section(who, "read", 1_000), waiting).pipe(inProcess(shared))
        )
      const write = (who: string) =>
        forkChild(
          ReadWriteLock.withWriteLock("doc", track.section(who, "write", 1_000), waiting).pipe(inProcess(shared))
        )
      const fibers = [yield* read("r1"), yield* read("r2"), yield* write("w1")]
      yield* settle
      expect(track.inside).toEqual({ read: 2, write: 0 })
      yield* advance(1_500)
      expect(track.inside).toEqual({ read: 0, write: 1 })
      fibers.push(yield* read("r3"))
      yield* advance(1_500)
      expect(track.inside.write).toBe(0)
      yield* advance(1_000)
      yield* Effect.forEach(fibers, Fiber.join)
      expect(track.overlaps).toEqual([])
      expect(track.startOf("r3")).toBeGreaterThanOrEqual(track.startOf("w1")! + 1_000)
    }))

  it.effect("without wait, a reader beside a writer fails with LockNotAcquired and writes nothing", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const writer = yield* forkChild(
        ReadWriteLock.withWriteLock("doc", Effect.sleep("1 second")).pipe(inProcess(shared))
      )
      yield* settle
      const error = yield* Effect.flip(ReadWriteLock.withReadLock("doc", Effect.void).pipe(inProcess(shared)))
      expect(error._tag).toBe("LockNotAcquired")
      const record = Option.getOrThrow(yield* shared.inspectSemaphore("doc"))
      expect(record.holders.map((holder) => holder.permits)).toEqual([ReadWriteLock.maxReaders])
      expect(record.readWrite).toBe(true)
      yield* advance(1_000)
      yield* Fiber.join(writer)
    }))

  it.effect("fences: a writer's is above every earlier holder's, and a reader's above every earlier writer's", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const fence = (mode: ReadWriteLock.Mode) =>
        (mode === "read" ? ReadWriteLock.withReadLock : ReadWriteLock.withWriteLock)(
          "doc",
          (lease) => Effect.succeed({ mode, fence: lease.fence, actual: ReadWriteLock.modeOf(lease) }),
          waiting
        ).pipe(inProcess(shared))
      const seen = [
        yield* fence("read"),
        yield* fence("write"),
        yield* fence("read"),
        yield* fence("read"),
        yield* fence("write")
      ]
      expect(seen.map((one) => one.actual)).toEqual(["read", "write", "read", "read", "write"])
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.fence).toBeGreaterThan(seen[i - 1]!.fence)
    }))

  it.effect("a stream of overlapping readers does not starve a waiting writer: new readers wait behind it", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const track = tracker()
      const fibers: Array<Fiber.Fiber<void, unknown>> = []
      // A new reader every 500 ms for 10 s, each reading for 1 s: without fairness, some reader always reads.
      for (let i = 0; i < 20; i++) {
        fibers.push(
          yield* forkChild(
            ReadWriteLock.withReadLock("doc", track.section(`r${i}`, "read", 1_000), waiting).pipe(inProcess(shared))
          )
        )
        if (i === 0) {
          yield* advance(200)
          fibers.push(
            yield* forkChild(
              ReadWriteLock.withWriteLock("doc", track.section("writer", "write", 300), waiting).pipe(
                inProcess(shared)
              )
            )
          )
          yield* advance(300)
        } else {
          yield* advance(500)
        }
      }
      yield* advance(5_000)
      yield* Effect.forEach(fibers, Fiber.join)
      // The writer found r0 reading and began to wait before r1 asked: it goes after r0, and r1 after it.
      const writerAt = track.startOf("writer")!
      expect(writerAt).toBeLessThan(2_000)
      expect(track.startOf("r1")).toBeGreaterThanOrEqual(writerAt + 300)
      expect(track.overlaps).toEqual([])
      expect(track.runs.length).toBe(21)
    }))

  it.effect("a stream of writers does not starve a waiting reader: it goes before the writers that asked after it", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const track = tracker()
      const fibers: Array<Fiber.Fiber<void, unknown>> = []
      // A new writer every 300 ms, each writing for 1 s and polling five times as often as the reader: without
      // fairness, some writer is always next.
      const eager = { wait: "forever", pollInterval: "20 millis" } as const
      for (let i = 0; i < 12; i++) {
        fibers.push(
          yield* forkChild(
            ReadWriteLock.withWriteLock("doc", track.section(`w${i}`, "write", 1_000), eager).pipe(
              inProcess(shared)
            )
          )
        )
        yield* advance(150)
        // Asked after w0..w3: goes after them at most, before w4 and every later writer.
        if (i === 3) {
          fibers.push(
            yield* forkChild(
              ReadWriteLock.withReadLock("doc", track.section("reader", "read", 100), waiting).pipe(
                inProcess(shared)
              )
            )
          )
        }
        yield* advance(150)
      }
      yield* advance(20_000)
      yield* Effect.forEach(fibers, Fiber.join)
      const readerAt = track.startOf("reader")!
      for (let i = 4; i < 12; i++) expect(track.startOf(`w${i}`)).toBeGreaterThan(readerAt)
      expect(track.overlaps).toEqual([])
      expect(track.runs.length).toBe(13)
    }))

  it.effect("re-entry: a read inside a read or a write re-enters it, and a write inside a read is refused", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const inRead = yield* ReadWriteLock.withReadLock("doc", (outer) =>
        Effect.gen(function*() {
          const again = yield* ReadWriteLock.withReadLock("doc", (inner) => Effect.succeed(inner.fence))
          const upgrade = yield* Effect.flip(ReadWriteLock.withWriteLock("doc", Effect.void))
          const record = Option.getOrThrow(yield* shared.inspectSemaphore("doc"))
          return { outer: outer.fence, again, upgrade, holders: record.holders.length }
        })).pipe(inProcess(shared))
      expect(inRead.again).toBe(inRead.outer)
      expect(inRead.upgrade._tag).toBe("LockUpgradeRefused")
      expect(inRead.upgrade.message).toContain("\"doc\"")
      // The refused upgrade left the read lock held, and nothing else.
      expect(inRead.holders).toBe(1)

      const inWrite = yield* ReadWriteLock.withWriteLock("doc", (outer) =>
        Effect.gen(function*() {
          const read = yield* ReadWriteLock.withReadLock("doc", (inner) => Effect.succeed(inner.fence))
          const write = yield* ReadWriteLock.withWriteLock("doc", (inner) => Effect.succeed(inner.fence))
          return { outer: outer.fence, read, write }
        })).pipe(inProcess(shared))
      expect(inWrite.read).toBe(inWrite.outer)
      expect(inWrite.write).toBe(inWrite.outer)
      expect(Option.getOrThrow(yield* shared.inspectSemaphore("doc")).holders).toEqual([])
    }))

  it.effect("a lost lease interrupts the section, which fails with LockLost", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      let finished = false
      const section = yield* forkChild(
        Effect.flip(
          ReadWriteLock.withWriteLock(
            "doc",
            Effect.andThen(Effect.sleep("1 minute"), Effect.sync(() => finished = true)),
            { lease: "10 seconds", heartbeat: "2 seconds" }
          )
        ).pipe(inProcess(shared))
      )
      yield* settle
      const holder = Option.getOrThrow(yield* shared.inspectSemaphore("doc")).holders[0]!
      // An operator takes the writer's permits away.
      yield* shared.releasePermits({ name: "doc", owner: holder.owner, fence: holder.fence, permits: holder.permits })
      yield* advance(3_000)
      const error = yield* Fiber.join(section)
      expect(finished).toBe(false)
      expect(error._tag).toBe("LockLost")
    }))

  it.effect("scoped: acquireRead and acquireWrite hold until the scope closes; a bad name is a LockConfigError", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const modes = yield* Effect.scoped(Effect.gen(function*() {
        const write = yield* ReadWriteLock.acquireWrite("doc")
        const read = yield* ReadWriteLock.acquireRead("doc")
        return [ReadWriteLock.modeOf(write), ReadWriteLock.modeOf(read), write.permits] as const
      })).pipe(inProcess(shared))
      expect(modes).toEqual(["write", "write", ReadWriteLock.maxReaders])
      expect(Option.getOrThrow(yield* ReadWriteLock.inspect("doc").pipe(inProcess(shared))).holders).toEqual([])
      const error = yield* Effect.flip(ReadWriteLock.withReadLock("", Effect.void).pipe(inProcess(shared)))
      expect(error._tag).toBe("LockConfigError")
    }))
})
