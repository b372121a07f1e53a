import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import * as Failure from "../../src/dynamodb/Failure.js"
import * as RequestAttempt from "../../src/dynamodb/RequestAttempt.js"

const plan: RequestAttempt.Plan = { requestTimeoutMs: 1_000, maxRetries: 2 }

const first: RequestAttempt.Attempt = {
  attempts: 1,
  earlierMayHaveApplied: false,
  reportsUnknownOutcomes: false,
  background: false
}

const sdkError = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra })

describe("RequestAttempt.decide", () => {
  it("answers a failed condition with the old item, even when the store has closed", () => {
    const item = { key: { S: "a" } }
    const closed = { ...plan, lifetime: { closed: true, inFlight: new Set<AbortController>() } }
    expect(RequestAttempt.decide(closed, first, sdkError("ConditionalCheckFailedException", { Item: item })))
      .toEqual({ _tag: "ConditionFailed", item })
    expect(RequestAttempt.decide(plan, first, sdkError("ConditionalCheckFailedException")))
      .toEqual({ _tag: "ConditionFailed", item: undefined })
  })

  it("reports a store that closed while the attempt was in flight, not the abort", () => {
    const closed = { ...plan, lifetime: { closed: true, inFlight: new Set<AbortController>() } }
    expect(RequestAttempt.decide(closed, first, sdkError("AbortError"))).toEqual({ _tag: "Closed", inFlight: true })
  })

  it("retries a transient failure while retries are left, counting what may have applied", () => {
    const timeout = new Failure.RequestTimedOut(1_000)
    expect(RequestAttempt.decide(plan, first, timeout)).toEqual({ _tag: "Retry", mayHaveApplied: true })
    const throttled = sdkError("ThrottlingException")
    expect(RequestAttempt.decide(plan, first, throttled)).toEqual({ _tag: "Retry", mayHaveApplied: false })
    expect(RequestAttempt.decide(plan, { ...first, earlierMayHaveApplied: true }, throttled))
      .toEqual({ _tag: "Retry", mayHaveApplied: true })
    expect(RequestAttempt.decide(plan, { ...first, attempts: 3 }, throttled)).toEqual({
      _tag: "Fail",
      error: throttled
    })
  })

  it("fails what trying again can not fix, and an unknown outcome of a call that reports them", () => {
    const invalid = sdkError("ValidationException")
    expect(RequestAttempt.decide(plan, first, invalid)).toEqual({ _tag: "Fail", error: invalid })
    const timeout = new Failure.RequestTimedOut(1_000)
    expect(RequestAttempt.decide(plan, { ...first, reportsUnknownOutcomes: true }, timeout))
      .toEqual({ _tag: "Fail", error: timeout })
  })
})

describe("RequestAttempt.run", () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  const pending = () => {
    let reject: (error: unknown) => void = () => {}
    let resolve: (value: string) => void = () => {}
    const promise = new Promise<string>((ok, fail) => {
      resolve = ok
      reject = fail
    })
    return { promise, resolve, reject }
  }

  it("settles with the output and leaves the store's requests in flight empty", async () => {
    const lifetime = RequestAttempt.makeLifetime()
    const outcomes: Array<RequestAttempt.Outcome<string>> = []
    const request = pending()
    RequestAttempt.run({ ...plan, lifetime }, first, () => request.promise, (outcome) => outcomes.push(outcome))
    expect(lifetime.inFlight.size).toBe(1)
    request.resolve("done")
    await vi.runAllTimersAsync()
    expect(outcomes).toEqual([{ _tag: "Ok", output: "done" }])
    expect(lifetime.inFlight.size).toBe(0)
  })

  it("aborts an attempt at its timeout and fails it as timed out", async () => {
    const outcomes: Array<RequestAttempt.Outcome<string>> = []
    let signal: AbortSignal | undefined
    const request = pending()
    RequestAttempt.run(plan, first, (abort) => {
      signal = abort
      abort.addEventListener("abort", () => request.reject(sdkError("AbortError")))
      return request.promise
    }, (outcome) => outcomes.push(outcome))
    await vi.advanceTimersByTimeAsync(999)
    expect(signal?.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(signal?.aborted).toBe(true)
    expect(outcomes).toEqual([{ _tag: "Retry", mayHaveApplied: true }])
  })

  it("fails a store that has closed at once, without sending", () => {
    const lifetime = RequestAttempt.makeLifetime()
    RequestAttempt.end(lifetime)
    const outcomes: Array<RequestAttempt.Outcome<string>> = []
    const send = vi.fn(() => Promise.resolve("sent"))
    RequestAttempt.run({ ...plan, lifetime }, first, send, (outcome) => outcomes.push(outcome))
    expect(send).not.toHaveBeenCalled()
    expect(outcomes).toEqual([{ _tag: "Closed", inFlight: false }])
  })

  it("aborts the requests in flight when the store ends, and reports them abandoned", async () => {
    const lifetime = RequestAttempt.makeLifetime()
    const outcomes: Array<RequestAttempt.Outcome<string>> = []
    const request = pending()
    RequestAttempt.run({ ...plan, lifetime }, first, (signal) => {
      signal.addEventListener("abort", () => request.reject(sdkError("AbortError")))
      return request.promise
    }, (outcome) => outcomes.push(outcome))
    RequestAttempt.end(lifetime)
    await vi.runAllTimersAsync()
    expect(lifetime).toMatchObject({ closed: true })
    expect(lifetime.inFlight.size).toBe(0)
    expect(outcomes).toEqual([{ _tag: "Closed", inFlight: true }])
  })

  it("turns a synchronous throw into a failure, and settles nothing after an interruption", async () => {
    const outcomes: Array<RequestAttempt.Outcome<string>> = []
    const invalid = sdkError("ValidationException")
    RequestAttempt.run<string>(plan, first, () => {
      throw invalid
    }, (outcome) => outcomes.push(outcome))
    await vi.runAllTimersAsync()
    expect(outcomes).toEqual([{ _tag: "Fail", error: invalid }])

    const lifetime = RequestAttempt.makeLifetime()
    let signal: AbortSignal | undefined
    const request = pending()
    const cancel = RequestAttempt.run({ ...plan, lifetime }, first, (abort) => {
      signal = abort
      return request.promise
    }, (outcome) => outcomes.push(outcome))
    cancel()
    request.resolve("late")
    await vi.runAllTimersAsync()
    expect(signal?.aborted).toBe(true)
    expect(lifetime.inFlight.size).toBe(0)
    expect(outcomes).toHaveLength(1)
  })
})
