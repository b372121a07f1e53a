import { describe, expect, it } from "vitest"
import type { LockRecord } from "../../src/record/LockRecord.js"
import * as LeaseSession from "../../src/session/LeaseSession.js"
import * as SessionVerdict from "../../src/session/SessionVerdict.js"
import { lockRecord } from "../record/fixtures.js"

const id = "session-a"

const session: LockRecord = lockRecord({
  name: LeaseSession.recordName(id),
  owner: id,
  holder: "host-a",
  leaseUntil: 40_000,
  leaseMs: 30_000,
  fence: 3,
  version: 9,
  sequence: 4,
  acquiredAt: 1_000
})

const judge = (overrides: Partial<Parameters<typeof SessionVerdict.judge>[0]> = {}) =>
  SessionVerdict.judge({
    takeover: "absolute",
    maxClockSkewMs: 10_000,
    id,
    record: session,
    sentAt: 500,
    answeredAt: 510,
    wallSentAt: 45_000,
    observation: undefined,
    ...overrides
  })

describe("SessionVerdict.judge", () => {
  it("finds a session dead whose record is gone, or held by someone else (it ended)", () => {
    expect(judge({ record: undefined })._tag).toBe("Dead")
    expect(judge({ record: { ...session, owner: undefined } })._tag).toBe("Dead")
    expect(judge({ record: { ...session, owner: "session-b" } })._tag).toBe("Dead")
  })

  it("absolute: dead only from a read sent after leaseUntil + the skew bound, and says how long until then", () => {
    expect(judge({ wallSentAt: 50_000 })).toEqual({ _tag: "Alive", untilJudgedMs: 1, observation: undefined })
    expect(judge({ wallSentAt: 50_001 })._tag).toBe("Dead")
    expect(judge({ wallSentAt: 45_000 })).toEqual({ _tag: "Alive", untilJudgedMs: 5_001, observation: undefined })
  })

  it("observed: alive at first sight, remembering the record as seen at the read's answer", () => {
    const first = judge({ takeover: "observed" })
    expect(first).toEqual({
      _tag: "Alive",
      untilJudgedMs: 30_000,
      observation: { owner: id, fence: 3, version: 9, leaseMs: 30_000, seenAt: 510 }
    })
  })

  it("observed: dead once a read sent a full lease after that answer shows the same version", () => {
    const first = judge({ takeover: "observed" })
    if (first._tag !== "Alive") throw new Error("alive at first sight")
    const early = judge({ takeover: "observed", observation: first.observation, sentAt: 30_509, answeredAt: 30_520 })
    expect(early).toEqual({ _tag: "Alive", untilJudgedMs: 0, observation: first.observation })
    expect(judge({ takeover: "observed", observation: first.observation, sentAt: 30_510 })._tag).toBe("Dead")
  })

  it("observed: a renew in between (a new version) starts the watch again", () => {
    const first = judge({ takeover: "observed" })
    if (first._tag !== "Alive") throw new Error("alive at first sight")
    const renewed = judge({
      takeover: "observed",
      observation: first.observation,
      record: { ...session, version: 10 },
      sentAt: 40_000,
      answeredAt: 40_010
    })
    expect(renewed).toEqual({
      _tag: "Alive",
      untilJudgedMs: 30_000,
      observation: { owner: id, fence: 3, version: 10, leaseMs: 30_000, seenAt: 40_010 }
    })
  })
})

describe("LeaseSession", () => {
  const under: LockRecord = {
    ...session,
    name: "orders",
    owner: "owner-a",
    leaseUntil: LeaseSession.heldUntil,
    leaseMs: LeaseSession.heldUntil,
    session: id
  }

  it("heldUntil is a date every Date shows, far past any clock", () => {
    expect(new Date(LeaseSession.heldUntil).toISOString()).toBe("9999-12-31T23:59:59.999Z")
    expect(Number.isSafeInteger(LeaseSession.heldUntil + 24 * 24 * 3600 * 1000)).toBe(true)
  })

  it("a lock is under the session it names only while held with the session's lease fields", () => {
    expect(LeaseSession.sessionOf(under)).toBe(id)
    // A process that knows nothing of sessions renewed it onto a lease of its own, leaving the id behind.
    expect(LeaseSession.sessionOf({ ...under, leaseUntil: 50_000 })).toBeUndefined()
    expect(LeaseSession.sessionOf({ ...under, owner: undefined })).toBeUndefined()
    expect(LeaseSession.sessionOf({ ...under, session: undefined })).toBeUndefined()
  })

  it("a session's record has a name no lock takes", () => {
    expect(LeaseSession.isRecordName(LeaseSession.recordName(id))).toBe(true)
    expect(LeaseSession.lockNameProblem(LeaseSession.recordName(id))).toContain("lease sessions")
    expect(LeaseSession.lockNameProblem("orders")).toBeUndefined()
  })
})
