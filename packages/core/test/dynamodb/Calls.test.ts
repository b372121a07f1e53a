import { describe, expect, it } from "vitest"
import * as Calls from "../../src/dynamodb/Calls.js"

describe("Calls", () => {
  it("reports the unknown outcomes of the acquiring writes only", () => {
    const reporting = Object.entries(Calls.calls)
      .filter(([, call]) => "reportsUnknownOutcomes" in call && call.reportsUnknownOutcomes)
      .map(([name]) => name)
    expect(reporting).toEqual(["tryAcquire", "tryAcquireAll", "tryAcquirePermits"])
  })

  it("names each call by its operation and DynamoDB action", () => {
    expect(Calls.calls.query).toEqual({ operation: "list", action: "Query" })
    expect(Calls.calls.scan).toEqual({ operation: "list", action: "Scan" })
    expect(Calls.calls.readAcquiredAll).toEqual({ operation: "tryAcquireAll", action: "BatchGetItem" })
    expect(Calls.calls.tryAcquireAll).toMatchObject({ operation: "tryAcquireAll", action: "TransactWriteItems" })
    for (const [name, call] of Object.entries(Calls.getItemCalls)) {
      expect(call).toEqual({ operation: name, action: "GetItem" })
    }
    for (const name of ["renew", "release", "reserve", "forceRelease", "renewPermits", "releasePermits"] as const) {
      expect(Calls.calls[name]).toEqual({ operation: name, action: "UpdateItem" })
    }
  })
})
