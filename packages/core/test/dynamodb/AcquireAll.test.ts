import { describe, expect, it } from "vitest"
import * as AcquireAll from "../../src/dynamodb/AcquireAll.js"
import * as LockRequests from "../../src/dynamodb/LockRequests.js"
import type { LockRecord } from "../../src/record/LockRecord.js"
import type * as LockProtocol from "../../src/store/LockProtocol.js"

const request = (name: string, patch: Partial<LockProtocol.AcquireRequest> = {}): LockProtocol.AcquireRequest => ({
  name,
  owner: `owner-${name}`,
  holder: "h",
  leaseMs: 1000,
  data: undefined,
  takeover: { _tag: "Observed", stale: undefined },
  ...patch
})

const record = (name: string, patch: Partial<LockRecord> = {}): LockRecord => ({
  name,
  owner: `owner-${name}`,
  holder: "h",
  leaseUntil: 2000,
  leaseMs: 1000,
  fence: 7,
  version: 1,
  sequence: 0,
  acquiredAt: 1000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...patch
})

const canceled = (...codes: ReadonlyArray<string>) =>
  Object.assign(new Error("Transaction cancelled"), {
    name: "TransactionCanceledException",
    CancellationReasons: codes.map((Code) => Code === "None" ? { Code } : { Code, Message: `${Code} message` })
  })

describe("AcquireAll.transaction", () => {
  it("is each lock's single acquiring write of a free lock, in the order of the requests", () => {
    const locks = [
      { request: request("b", { data: "d" }), key: { key: { S: "b" } } },
      { request: request("a", { session: "s", reserved: true }), key: { key: { S: "a" } } }
    ]
    const { TransactItems } = AcquireAll.transaction("locks", locks, 1000, 60_000)
    expect(TransactItems).toEqual(locks.map(({ key, request }) => ({
      Update: {
        TableName: "locks",
        Key: key,
        ...LockRequests.acquire(request, 1000, LockRequests.freeOnly, 60_000)
      }
    })))
  })

  it("takes nothing over, whatever takeover or orphan a request names", () => {
    const taking = request("a", {
      takeover: { _tag: "Absolute", maxClockSkewMs: 0 },
      orphan: { owner: "dead", fence: 3 }
    })
    const [item] = AcquireAll.transaction("locks", [{ request: taking, key: { key: { S: "a" } } }], 1000, 60_000)
      .TransactItems
    expect(item!.Update.ConditionExpression).toBe(
      LockRequests.acquire(taking, 1000, LockRequests.freeOnly, 60_000).ConditionExpression
    )
  })
})

describe("AcquireAll.rejection", () => {
  it("is Unsupported for a server without the operation", () => {
    expect(AcquireAll.rejection({ name: "UnknownOperationException", message: "UnknownError" })).toEqual({
      _tag: "Unsupported"
    })
  })

  it("is Refused when a lock was not free, or another transaction was writing one", () => {
    expect(AcquireAll.rejection(canceled("None", "ConditionalCheckFailed"))).toEqual({ _tag: "Refused" })
    expect(AcquireAll.rejection(canceled("TransactionConflict", "None"))).toEqual({ _tag: "Refused" })
    expect(AcquireAll.rejection(canceled("ThrottlingError", "ConditionalCheckFailed"))).toEqual({ _tag: "Refused" })
  })

  it("is Canceled for any other reason, which may pass only when it is throttling", () => {
    expect(AcquireAll.rejection(canceled("None", "ThrottlingError"))).toEqual({
      _tag: "Canceled",
      retryable: true,
      reasons: "item 2: ThrottlingError (ThrottlingError message)"
    })
    const invalid = AcquireAll.rejection(canceled("ValidationError", "TransactionConflict"))
    expect(invalid).toMatchObject({ _tag: "Canceled", retryable: false })
    expect(AcquireAll.rejection(canceled())).toEqual({
      _tag: "Canceled",
      retryable: false,
      reasons: "no reasons given"
    })
    if (invalid?._tag === "Canceled") {
      expect(AcquireAll.canceledMessage("locks", invalid)).toBe(
        "DynamoDB canceled TransactWriteItems on table \"locks\" and applied none of it (item 1: ValidationError " +
          "(ValidationError message); item 2: TransactionConflict (TransactionConflict message))"
      )
    }
  })

  it("leaves every other failure to the store's judgement of requests", () => {
    expect(AcquireAll.rejection({ name: "ThrottlingException" })).toBeUndefined()
    expect(AcquireAll.rejection({ name: "ValidationException" })).toBeUndefined()
    expect(AcquireAll.rejection("odd")).toBeUndefined()
  })
})

describe("AcquireAll.acquired", () => {
  const requests = [request("b"), request("a")]

  it("answers the records in the order of the requests", () => {
    const records = new Map([["a", record("a")], ["b", record("b")]])
    expect(AcquireAll.acquired(requests, records)).toEqual({ _tag: "Acquired", records: [record("b"), record("a")] })
  })

  it("is not shown when a lock has no item, no holder, or another owner", () => {
    const cases: ReadonlyArray<[ReadonlyMap<string, LockRecord>, string]> = [
      [new Map([["b", record("b")]]), "lock \"a\" has no item, not owner owner-a of the take"],
      [new Map([["a", record("a", { owner: undefined })], ["b", record("b")]]), "lock \"a\" has no holder"],
      [new Map([["a", record("a")], ["b", record("b", { owner: "other" })]]), "lock \"b\" is held by owner other"]
    ]
    for (const [records, message] of cases) {
      const answer = AcquireAll.acquired(requests, records)
      expect(answer._tag).toBe("NotShown")
      if (answer._tag === "NotShown") {
        expect(answer.message).toContain(message)
        expect(answer.message).toContain("could not be read back")
      }
    }
  })
})
