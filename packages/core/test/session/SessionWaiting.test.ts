import { describe, expect, it } from "vitest"
import * as SessionWaiting from "../../src/session/SessionWaiting.js"

describe("SessionWaiting", () => {
  it("keeps the poll interval for up to readsPerPoll waiters, and stretches it in proportion beyond", () => {
    const per = SessionWaiting.readsPerPoll
    expect(SessionWaiting.pollMs(200, 1)).toBe(200)
    expect(SessionWaiting.pollMs(200, per)).toBe(200)
    expect(SessionWaiting.pollMs(200, per * 2)).toBe(400)
    expect(SessionWaiting.pollMs(200, per * 250)).toBe(50_000)
    // Between them, the waiters read readsPerPoll locks per poll interval, however many they are.
    for (const waiters of [per + 1, 10, 1_000]) expect(waiters * (200 / SessionWaiting.pollMs(200, waiters))).toBe(per)
  })

  it("never sleeps past the moment the session could be judged dead", () => {
    expect(SessionWaiting.sleepMs(50_000, 700)).toBe(700)
    expect(SessionWaiting.sleepMs(150, 700)).toBe(150)
  })
})
