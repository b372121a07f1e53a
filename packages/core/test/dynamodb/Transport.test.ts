import { describe, expect, it } from "vitest"
import * as Failure from "../../src/dynamodb/Failure.js"
import * as Retry from "../../src/dynamodb/Retry.js"

const context: Failure.Context = {
  action: "UpdateItem",
  tableName: "locks",
  expectedKeySchema: "{key: S}",
  location: "region eu-west-1",
  attempts: 1,
  earlierMayHaveApplied: false
}

const sdkError = (name: string, message: string, status = 400) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } })

describe("Failure.judge", () => {
  it("retries throttling, server and network failures and timeouts, with their causes named", () => {
    expect(Failure.judge(sdkError("ThrottlingException", "slow"), context)).toEqual({
      retryable: true,
      mayHaveApplied: false,
      message: "DynamoDB throttled UpdateItem on table \"locks\" (ThrottlingException, 1 attempt): the table or " +
        "account is over its capacity; use on-demand billing or raise its provisioned throughput"
    })
    const server = Failure.judge(sdkError("InternalServerError", "oops", 500), { ...context, attempts: 3 })
    expect(server.retryable).toBe(true)
    expect(server.mayHaveApplied).toBe(true)
    expect(server.message).toContain("(InternalServerError HTTP 500: oops; 3 attempts)")
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })
    expect(Failure.judge(refused, context)).toMatchObject({ retryable: true, mayHaveApplied: false })
    expect(Failure.judge(new Failure.RequestTimedOut(250), context).message).toContain("timed out (250 ms per request")
  })

  it("refuses what trying again can not fix, and keeps an earlier attempt's open outcome", () => {
    expect(Failure.judge(sdkError("ResourceNotFoundException", "no table"), context).message).toContain(
      "table \"locks\" not found at region eu-west-1"
    )
    const schema = Failure.judge(
      sdkError("ValidationException", "The provided key element does not match the schema"),
      context
    )
    expect(schema.message).toContain("key schema is not {key: S}")
    const denied = Failure.judge(sdkError("AccessDeniedException", "nope"), { ...context, earlierMayHaveApplied: true })
    expect(denied).toMatchObject({ retryable: false, mayHaveApplied: true })
    expect(denied.message).toContain("permission dynamodb:UpdateItem")
    expect(Failure.judge("odd", context).message).toBe(
      "DynamoDB UpdateItem on table \"locks\" at region eu-west-1 failed: Error: odd"
    )
  })

  it("retries a write refused while a transaction wrote its item: nothing was applied", () => {
    const conflict = Failure.judge(sdkError("TransactionConflictException", "ongoing transaction"), context)
    expect(conflict).toMatchObject({ retryable: true, mayHaveApplied: false })
    expect(conflict.message).toContain("while a transaction was writing the same item")
    expect(Retry.retries(1, 3, sdkError("TransactionConflictException", "ongoing transaction"), true)).toBe(true)
  })

  it("tells a failed condition apart", () => {
    expect(Failure.isConditionalCheckFailed(sdkError("ConditionalCheckFailedException", "x"))).toBe(true)
    expect(Failure.isConditionalCheckFailed({ name: "ValidationException" })).toBe(false)
  })
})

describe("Retry", () => {
  it("doubles the backoff per attempt, times the jitter", () => {
    expect(Retry.backoffMs(50, 2, 1)).toBe(50)
    expect(Retry.backoffMs(50, 4, Retry.jitterMax)).toBe(240)
    expect(Retry.backoffMs(50, 3, Retry.jitterMin)).toBe(80)
  })

  it("retries transient failures while retries are left, never an unknown outcome of a call that reports them", () => {
    const throttled = sdkError("ThrottlingException", "slow")
    const timeout = new Failure.RequestTimedOut(10)
    expect(Retry.retries(3, 3, throttled, false)).toBe(true)
    expect(Retry.retries(4, 3, throttled, false)).toBe(false)
    expect(Retry.retries(1, 3, sdkError("ValidationException", "bad"), false)).toBe(false)
    expect(Retry.retries(1, 3, timeout, false)).toBe(true)
    expect(Retry.retries(1, 3, timeout, true)).toBe(false)
    // A throttled request was refused whole: it applied nothing, so even such a call retries it.
    expect(Retry.retries(1, 3, throttled, true)).toBe(true)
  })

  it("bounds the request timer by what Node keeps, and reads headers in any case", () => {
    expect(Retry.timerMs(3_000)).toBe(3_000)
    expect(Retry.timerMs(Number.MAX_SAFE_INTEGER)).toBe(Retry.maxTimerMs)
    expect(Retry.headerOf({ date: "D" }, "date")).toBe("D")
    expect(Retry.headerOf({ Date: "E" }, "date")).toBe("E")
    expect(Retry.headerOf(undefined, "date")).toBeUndefined()
  })
})

describe("type errors of a write", () => {
  it("name a malformed item only for DynamoDB's type refusals", () => {
    expect(Failure.fenceTypeProblem("An operand in the update expression has an incorrect data type")).toBe(
      "its \"fence\" attribute is not a number (DynamoDB said: An operand in the update expression has an incorrect " +
        "data type)"
    )
    expect(Failure.fenceTypeProblem("The document path provided in the update expression is invalid")).toBeUndefined()
    expect(Failure.semaphoreTypeProblem("The document path provided in the update expression is invalid"))
      .toContain("an attribute has the wrong type")
    expect(Failure.semaphoreTypeProblem("throttled")).toBeUndefined()
  })
})

describe("where a client sends its requests", () => {
  const endpoint = (url: string) => async () => {
    const parsed = new URL(url)
    return {
      protocol: parsed.protocol,
      hostname: parsed.hostname,
      port: parsed.port === "" ? undefined : Number(parsed.port),
      path: parsed.pathname
    }
  }

  it("is the endpoint when there is one, else the region, and a failing provider counts as none", async () => {
    expect(
      await Failure.describeLocation({ region: async () => "eu-west-1", endpoint: endpoint("http://127.0.0.1:8000") })
    )
      .toBe("http://127.0.0.1:8000")
    expect(
      await Failure.describeLocation({
        region: async () => "eu-west-1",
        endpoint: endpoint("https://vpce.example/ddb")
      })
    )
      .toBe("https://vpce.example/ddb")
    expect(await Failure.describeLocation({ region: async () => "eu-west-1" })).toBe("region eu-west-1")
    const failing = async () => {
      throw new Error("no provider")
    }
    expect(await Failure.describeLocation({ region: async () => "eu-west-1", endpoint: failing })).toBe(
      "region eu-west-1"
    )
    expect(await Failure.describeLocation({ region: failing })).toBe("the default endpoint (no region configured)")
  })

  it("a store whose scope has closed names the call it did not send, or abandoned", () => {
    expect(Failure.closedMessage("UpdateItem", "locks", true)).toBe(
      "UpdateItem on table \"locks\" was abandoned in flight: the store's scope has closed (the program it was " +
        "provided to has ended)"
    )
    expect(Failure.closedMessage("GetItem", "locks", false)).toContain("GetItem on table \"locks\" was not sent")
  })
})
