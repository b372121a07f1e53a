import { describe, expect, it } from "vitest"
import * as GuardedTakeover from "../../src/dynamodb/GuardedTakeover.js"
import type * as LockRequests from "../../src/dynamodb/LockRequests.js"
import * as SkewMonitor from "../../src/dynamodb/SkewMonitor.js"
import type { LockRecord } from "../../src/record/LockRecord.js"
import type { SemaphoreRecord } from "../../src/record/SemaphoreRecord.js"
import type * as SemaphoreProtocol from "../../src/store/SemaphoreProtocol.js"

const server = Date.parse("Thu, 01 Jan 2026 00:00:00 GMT")
const date = new Date(server).toUTCString()
const maxClockSkewMs = 1_000

const holder: LockRecord = {
  name: "n",
  owner: "o",
  holder: "worker",
  leaseUntil: server - 5_000,
  leaseMs: 1_000,
  fence: 1,
  version: 1,
  sequence: 0,
  acquiredAt: server - 6_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
}

/** A monitor that has seen `estimate` (none: nothing measured yet), read on a clock that stands at `now`. */
const skewAt = (now: number, sentAt?: number): GuardedTakeover.Skew => {
  const monitor = SkewMonitor.make(undefined)
  if (sentAt !== undefined) monitor.observe(sentAt, sentAt + 10, 0, date)
  return { monitor, clock: { wallMillis: () => now, monotonicMillis: () => now - (sentAt ?? now) - 10 } }
}

const conflict = (current: LockRecord | undefined): LockRequests.Acquisition => ({
  result: { _tag: "Conflict", current, attempts: 1 } as LockRequests.Acquisition["result"],
  holder: current
})

/** Runs the steps against attempts that answer `answers` in turn; returns what was attempted and the last step. */
const drive = <R>(guard: GuardedTakeover.Guard<R>, answers: ReadonlyArray<R>) => {
  const attempted: Array<boolean> = []
  let step = GuardedTakeover.first(guard)
  while (step._tag === "Attempt") {
    attempted.push(step.takeOver)
    step = GuardedTakeover.next(guard, step, answers[attempted.length - 1]!)
  }
  return { attempted, step }
}

describe("GuardedTakeover.lock", () => {
  it("takes over at once without the guard, or with an estimate that allows it", () => {
    const off: GuardedTakeover.Skew = { monitor: undefined, clock: skewAt(server).clock }
    expect(drive(GuardedTakeover.lock(off, "n", server, maxClockSkewMs), [conflict(holder)]).attempted).toEqual([true])
    const trusted = skewAt(server + 10, server)
    const { attempted, step } = drive(GuardedTakeover.lock(trusted, "n", server + 10, maxClockSkewMs), [
      conflict(holder)
    ])
    expect(attempted).toEqual([true])
    expect(step).toEqual({ _tag: "Answer", result: conflict(holder) })
  })

  it("measures first without an estimate, and answers when the conflict is no lease past its time", () => {
    const free = drive(GuardedTakeover.lock(skewAt(server), "n", server, maxClockSkewMs), [conflict(undefined)])
    expect(free.attempted).toEqual([false])
    expect(free.step).toEqual({ _tag: "Answer", result: conflict(undefined) })
    const live = { ...holder, leaseUntil: server }
    const held = drive(GuardedTakeover.lock(skewAt(server), "n", server, maxClockSkewMs), [conflict(live)])
    expect(held.step).toEqual({ _tag: "Answer", result: conflict(live) })
  })

  it("takes over after measuring when the measurement allows it", () => {
    // The measuring attempt's answer carried no Date header: nothing to guard with.
    const { attempted, step } = drive(GuardedTakeover.lock(skewAt(server), "n", server, maxClockSkewMs), [
      conflict(holder),
      conflict(undefined)
    ])
    expect(attempted).toEqual([false, true])
    expect(step).toEqual({ _tag: "Answer", result: conflict(undefined) })
  })

  it("refuses after measuring a clock too far from DynamoDB's", () => {
    const skewed = skewAt(server - 4_000, server - 5_000)
    const { attempted, step } = drive(GuardedTakeover.lock(skewed, "n", server - 4_000, maxClockSkewMs), [
      conflict({ ...holder, leaseUntil: server - 30_000 })
    ])
    expect(attempted).toEqual([false])
    expect(step._tag === "Refuse" && step.message).toContain(
      "refusing to take over lock \"n\" from worker (owner o, lease until"
    )
    expect(step._tag === "Refuse" && step.message).toContain("more than half of maxClockSkew (1000 ms)")
  })
})

describe("GuardedTakeover.semaphore", () => {
  const expired: ReadonlyArray<SemaphoreProtocol.ExpiredPermit> = [{ owner: "a", permits: 1, version: 1 }]
  const semaphore = (leaseUntil: number): SemaphoreRecord => ({
    name: "s",
    limit: 1,
    fence: 1,
    used: 1,
    holders: [{
      owner: "a",
      holder: "worker",
      permits: 1,
      fence: 1,
      leaseUntil,
      leaseMs: 1_000,
      version: 1,
      sequence: 0,
      acquiredAt: leaseUntil - 1_000,
      data: undefined
    }]
  } as SemaphoreRecord)
  const conflictWith = (current: SemaphoreRecord | undefined): SemaphoreProtocol.AcquirePermitsResult => ({
    _tag: "Conflict",
    current
  })

  it("is off when no holder is to be removed", () => {
    const guard = GuardedTakeover.semaphore(skewAt(server), "s", [], server, maxClockSkewMs)
    expect(drive(guard, [conflictWith(undefined)]).attempted).toEqual([true])
  })

  it("removes the holders after measuring only when the answer still shows each of them over", () => {
    const guard = GuardedTakeover.semaphore(skewAt(server), "s", expired, server, maxClockSkewMs)
    expect(drive(guard, [conflictWith(semaphore(server))]).attempted).toEqual([false])
    expect(drive(guard, [{ _tag: "LimitMismatch", limit: 2 }]).attempted).toEqual([false])
    expect(drive(guard, [conflictWith(semaphore(server - 5_000)), conflictWith(undefined)]).attempted).toEqual([
      false,
      true
    ])
  })

  it("refuses the removal after measuring a clock too far from DynamoDB's", () => {
    const skewed = skewAt(server - 4_000, server - 5_000)
    const guard = GuardedTakeover.semaphore(skewed, "s", expired, server - 4_000, maxClockSkewMs)
    const { step } = drive(guard, [conflictWith(semaphore(server - 30_000))])
    expect(step._tag === "Refuse" && step.message).toContain(
      "refusing to remove the expired holders of semaphore \"s\" (owners a) on this process's clock"
    )
  })
})
