/**
 * How SDK failures become LockStoreErrors, and the clock-skew arithmetic: pure functions, checked with the error
 * shapes the SDK throws (names, `$metadata`, Node error codes), no server needed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { liveClock } from "../src/internal/effectLine.js"
import * as ClockSkew from "../src/internal/transport/clockSkew.js"
import * as Failure from "../src/internal/transport/failure.js"
import { TestClock } from "./effectLine.js"

const context: Failure.Context = {
  operation: "tryAcquire",
  action: "UpdateItem",
  tableName: "locks",
  expectedKeySchema: "{key: S}",
  location: "region eu-west-1",
  attempts: 4,
  earlierMayHaveApplied: false
}

const sdkError = (name: string, message: string, status = 400) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } })

const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("failure classification", () => {
  it("retries throttling, 5xx, network errors and timeouts, and nothing else", () => {
    for (
      const error of [
        sdkError("ProvisionedThroughputExceededException", "slow down"),
        sdkError("ThrottlingException", "slow down"),
        sdkError("RequestLimitExceeded", "slow down"),
        sdkError("InternalServerError", "oops", 500),
        sdkError("ServiceUnavailable", "oops", 503),
        sdkError("SomethingNew", "bad gateway", 502),
        nodeError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:8000"),
        nodeError("ECONNRESET", "read ECONNRESET"),
        new Error("socket hang up"),
        sdkError("TimeoutError", "Connection timed out after 1000 ms"),
        Object.assign(new AggregateError([nodeError("ECONNREFUSED", "x")], ""), { code: undefined }),
        new Failure.RequestTimedOut(3000)
      ]
    ) {
      expect(Failure.isTransient(error), String(error)).toBe(true)
      expect(Failure.toStoreError(error, context).retryable).toBe(true)
    }
    for (
      const error of [
        sdkError("ValidationException", "bad"),
        sdkError("ResourceNotFoundException", "Requested resource not found"),
        sdkError("AccessDeniedException", "not authorized"),
        sdkError("UnrecognizedClientException", "The security token included in the request is invalid."),
        new Error("boom")
      ]
    ) {
      expect(Failure.isTransient(error), String(error)).toBe(false)
      expect(Failure.toStoreError(error, context).retryable).toBe(false)
    }
  })

  it("a conditional check failure is recognised (it is a conflict, not an error)", () => {
    expect(
      Failure.isConditionalCheckFailed(sdkError("ConditionalCheckFailedException", "The conditional request failed"))
    )
      .toBe(true)
    expect(Failure.isConditionalCheckFailed(sdkError("ValidationException", "x"))).toBe(false)
  })

  it("messages name the cause and the fix", () => {
    const message = (error: unknown) => Failure.toStoreError(error, context).message
    expect(message(sdkError("ResourceNotFoundException", "Requested resource not found"))).toBe(
      `table "locks" not found at region eu-west-1: create it with DynamoLockStore.createTable({ tableName: "locks" }) ` +
        "or `leasehold table create --table locks` (or fix the table name / region / endpoint)"
    )
    expect(message(sdkError("ValidationException", "The provided key element does not match the schema"))).toContain(
      `table "locks"'s key schema is not {key: S}`
    )
    expect(message(sdkError("ValidationException", "One of the required keys was not given a value"))).toContain(
      "key schema is not {key: S}"
    )
    expect(message(sdkError("ValidationException", "ExpressionAttributeValues must not be empty"))).toBe(
      `DynamoDB rejected UpdateItem on table "locks" as invalid: ExpressionAttributeValues must not be empty`
    )
    const denied = message(sdkError("AccessDeniedException", "User: arn:aws:iam::1:user/x is not authorized"))
    expect(denied).toContain("lack the IAM permission dynamodb:UpdateItem on that table")
    expect(message(sdkError("UnrecognizedClientException", "The security token is invalid."))).toContain(
      "rejected the request's credentials"
    )
    expect(message(sdkError("InvalidSignatureException", "Signature expired"))).toContain("AWS_ACCESS_KEY_ID")
    expect(message(sdkError("CredentialsProviderError", "Could not load credentials from any providers"))).toContain(
      "no AWS credentials"
    )
    expect(message(sdkError("ThrottlingException", "Rate exceeded"))).toContain("4 attempts")
    expect(message(new Failure.RequestTimedOut(3000))).toContain("timed out (3000 ms per request, 4 attempts)")
    expect(message(nodeError("ECONNREFUSED", "connect ECONNREFUSED"))).toContain(
      "could not reach DynamoDB at region eu-west-1"
    )
    const error = Failure.toStoreError(sdkError("AccessDeniedException", "no"), context)
    expect(error.operation).toBe("tryAcquire")
    expect(error._tag).toBe("LockStoreError")
  })
})

describe("clock skew", () => {
  const second = 1000
  const server = Date.UTC(2026, 0, 1, 12, 0, 0)
  const date = new Date(server).toUTCString()

  it("is the provable minimum: Date's one-second window and the round trip are not blamed on the clock", () => {
    // Sent and received within the server's second: no provable skew.
    expect(ClockSkew.measure(server + 100, server + 900, 0, date)?.skewMs).toBe(0)
    // Local time a little before the window (latency, rounding) is still no proof.
    expect(ClockSkew.measure(server - 300, server + 200, 0, date)?.skewMs).toBe(0)
    // Received before the server's second began: local is at least that far behind.
    expect(ClockSkew.measure(server - 5 * second, server - 4 * second, 0, date)).toMatchObject({
      skewMs: 4 * second,
      localAhead: false
    })
    // Sent after the server's second ended: local is at least that far ahead.
    expect(ClockSkew.measure(server + 6 * second, server + 6 * second + 50, 0, date)).toMatchObject({
      skewMs: 5 * second,
      localAhead: true
    })
  })

  it("ignores a missing or unparsable Date header, and keeps the latest estimate", () => {
    expect(ClockSkew.measure(0, 1, 0, undefined)).toBeUndefined()
    expect(ClockSkew.measure(0, 1, 0, "yesterday-ish")).toBeUndefined()
    const monitor = ClockSkew.makeMonitor(liveClock)
    expect(monitor.current()).toBeUndefined()
    monitor.observe(server + 9 * second, server + 9 * second, 0, date)
    expect(monitor.current()?.skewMs).toBe(8 * second)
    monitor.observe(server + 1, server + 2, 0, undefined)
    expect(monitor.current()?.skewMs).toBe(8 * second)
    monitor.observe(server + 1, server + 2, 0, date)
    expect(monitor.current()?.skewMs).toBe(0)
  })

  it.effect("reads the server's time moved onto the store's clock by the offset, which only a TestClock has", () =>
    Effect.gen(function*() {
      // The store's clock reads an hour ahead of the system clock: the server's Date is moved by as much.
      const hour = 3_600_000
      const onTestClock = ClockSkew.measure(server + hour + 100, server + hour + 900, 0, date, {
        sent: hour,
        received: hour
      })
      expect(onTestClock).toMatchObject({ skewMs: 0, serverDate: server + hour, simulated: true })
      // A request's clock 6 s ahead of the store's is skewed by that, as against a real clock.
      expect(ClockSkew.measure(server + hour + 6 * second, server + hour + 6 * second, 0, date, {
        sent: hour,
        received: hour
      })).toMatchObject({ skewMs: 5 * second, localAhead: true })
      // The TestClock stands still during a request while the system clock runs on: each end has its own offset.
      expect(ClockSkew.measure(server + hour, server + hour, 0, date, { sent: hour, received: hour - 1_500 }))
        .toMatchObject({ skewMs: 0 })
      expect(ClockSkew.describe(onTestClock!)).toContain("as read on the store's TestClock")

      expect(ClockSkew.isTestClock(yield* TestClock.testClockWith(Effect.succeed))).toBe(true)
      expect(ClockSkew.isTestClock(liveClock)).toBe(false)
      expect(ClockSkew.makeMonitor(liveClock).offset).toBeUndefined()
      yield* TestClock.setTime(Date.now() + hour)
      const offset = ClockSkew.makeMonitor(yield* TestClock.testClockWith(Effect.succeed)).offset!()
      expect(Math.abs(offset - hour)).toBeLessThan(60_000)
    }))

  it("is stale once wall and monotonic time have moved apart by more than the tolerance, either way", () => {
    const estimate = ClockSkew.measure(server, server + 10, 5_000, date)!
    // Both clocks ran on alike for an hour: still good.
    expect(ClockSkew.isStale(estimate, server + 10 + 3_600_000, 5_000 + 3_600_000)).toBe(false)
    expect(ClockSkew.isStale(estimate, server + 10 + ClockSkew.staleToleranceMs, 5_000)).toBe(false)
    // The wall clock stepped forward, or back, while monotonic time went on.
    expect(ClockSkew.isStale(estimate, server + 10 + ClockSkew.staleToleranceMs + 1, 5_000)).toBe(true)
    expect(ClockSkew.isStale(estimate, server + 10 - 3_600_000, 5_000 + 1_000)).toBe(true)
    expect(ClockSkew.drift(estimate, server + 10 - 3_600_000, 5_000 + 1_000)).toBe(-3_601_000)
  })
})

describe("whether a failed request may have been applied", () => {
  const networkError = (code: string) => Object.assign(new Error(`connect ${code}`), { code })

  it("a request that never left, or that the server refused, was not applied", () => {
    for (
      const error of [
        networkError("ECONNREFUSED"),
        networkError("EAI_AGAIN"),
        Object.assign(new Error("connect ECONNRESET 127.0.0.1:8000"), { code: "ECONNRESET", syscall: "connect" }),
        sdkError("ResourceNotFoundException", "Requested resource not found"),
        sdkError("ValidationException", "The provided key element does not match the schema"),
        sdkError("ProvisionedThroughputExceededException", "over capacity"),
        sdkError("AccessDeniedException", "not authorized")
      ]
    ) {
      expect(Failure.mayHaveApplied(error)).toBe(false)
      expect(Failure.toStoreError(error, context).mayHaveApplied).toBe(false)
    }
  })

  it("a timeout, a dropped connection or a server error leaves the write's fate open", () => {
    for (
      const error of [
        new Failure.RequestTimedOut(3_000),
        Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" }),
        Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
        sdkError("InternalServerError", "internal", 500)
      ]
    ) {
      expect(Failure.mayHaveApplied(error)).toBe(true)
      expect(Failure.toStoreError(error, context).mayHaveApplied).toBe(true)
    }
  })

  it("a refusal after an earlier attempt that may have applied is not a proof of nothing written", () => {
    const refused = sdkError("ProvisionedThroughputExceededException", "over capacity")
    expect(Failure.toStoreError(refused, { ...context, earlierMayHaveApplied: true }).mayHaveApplied).toBe(true)
  })
})
