import { describe, expect, it } from "vitest"
import * as TableRequests from "../../src/dynamodb/TableRequests.js"

describe("TableRequests", () => {
  it("names a table no table can have for the TTL probe", () => {
    // DynamoDB table names are letters, digits, "_", "-" and "." only.
    expect(TableRequests.impossibleTableName).not.toMatch(/^[A-Za-z0-9_.-]+$/)
  })

  it("gives a table request longer than a lock request, and a few retries", () => {
    expect(TableRequests.retryPlan).toEqual({ requestTimeoutMs: 10_000, maxRetries: 3, retryBaseDelayMs: 100 })
    expect(TableRequests.activePollIntervalMs).toBe(250)
  })

  it("reads the name of a failure's cause", () => {
    expect(TableRequests.errorName(Object.assign(new Error("x"), { name: "ResourceNotFoundException" }))).toBe(
      "ResourceNotFoundException"
    )
    expect(TableRequests.errorName({ name: 3 })).toBeUndefined()
    expect(TableRequests.errorName(undefined)).toBeUndefined()
  })

  it("tells a server without TTL by its refusal of the probe, and any other refusal as a server with it", () => {
    expect(TableRequests.knowsUpdateTtl("UnknownOperationException")).toBe(false)
    expect(TableRequests.knowsUpdateTtl("UnknownOperation")).toBe(false)
    expect(TableRequests.knowsUpdateTtl("ValidationException")).toBe(true)
    expect(TableRequests.knowsUpdateTtl("AccessDeniedException")).toBe(true)
    expect(TableRequests.knowsUpdateTtl(undefined)).toBe(true)
  })

  it("words the answers that are not a table's description", () => {
    expect(TableRequests.noDescriptionMessage("locks")).toBe("DescribeTable on \"locks\" returned no table description")
    expect(TableRequests.notActiveMessage("locks", "2m")).toBe(
      "table \"locks\" did not become ACTIVE within 2m: check it in the console or with DescribeTable, and run " +
        "createTable again"
    )
  })
})
