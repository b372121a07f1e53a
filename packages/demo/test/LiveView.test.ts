import { describe, expect, it } from "@effect/vitest"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as LiveView from "../src/LiveView.js"
import * as State from "../src/State.js"

const record: LockRecord = {
  name: "demo/x",
  owner: "ab",
  holder: "worker 1 (pid 42)",
  leaseUntil: 11_500,
  leaseMs: 2_000,
  fence: 7,
  version: 1,
  sequence: 0,
  acquiredAt: 10_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
}

describe("LiveView", () => {
  it("shows the holder, fence, lease left, each worker and the incident log", () => {
    let state = State.initial(2, 0, 30_000, "4")
    state = State.apply(state, { _tag: "Ready", worker: 0, pid: 41, effect: "4.1.0", node: "v22.23.3" }, 100)
    state = State.apply(state, { _tag: "Ready", worker: 1, pid: 42, effect: "4.1.0", node: "v22.23.3" }, 100)
    expect(State.runtimes(state)).toEqual(["effect 4.1.0, Node v22.23.3"])
    state = State.apply(state, { _tag: "Entered", worker: 1, fence: 7, at: 10_000 }, 10_000)
    state = State.apply(
      state,
      { _tag: "Status", worker: 1, fence: 7, status: "at-risk", remainingMs: 600, at: 10_500 },
      10_500
    )
    state = State.addLog(state, 9_000, "INCIDENT: something")
    const frame = LiveView.frame(state, record, 10_000).join("\n")
    expect(frame).toContain("Leasehold demo, Effect 4 line  [##########....................] 10/30 s")
    expect(frame).toContain("lock: held by worker 1 (pid 42), fence 7, lease 1.5 s left")
    expect(frame).toMatch(/ 1\s+42\s+at risk\s+7\s/)
    expect(frame).toContain("t+ 10.5s  worker 1: lease at risk, 600 ms left to renew")
    expect(frame).toContain("t+  9.0s  INCIDENT: something")
    expect(State.holder(state)?.id).toBe(1)
  })

  it("says when a lease has run out, and when the lock is free", () => {
    expect(LiveView.lockLine(record, 12_000)).toContain("lease EXPIRED 0.5 s ago")
    expect(LiveView.lockLine({ ...record, owner: undefined }, 12_000)).toBe("lock: free (last fence 7)")
    expect(LiveView.lockLine(undefined, 0)).toBe("lock: never taken")
  })

  it("redraws in place on a terminal, cut to its width", () => {
    const out = LiveView.redraw(["a", "b".repeat(50)], 3, 20)
    expect(out.startsWith("\x1b[3A")).toBe(true)
    expect(out).toContain(`\x1b[2K${"b".repeat(19)}\n`)
  })

  it("a killed worker stays killed whatever it printed last", () => {
    let state = State.initial(1, 0, 1_000, "3")
    state = State.setWorkerState(state, 0, "killed (SIGKILL)")
    state = State.apply(state, { _tag: "Committed", worker: 0, fence: 1, start: 1, writeSentAt: 2, end: 3, read: 0 }, 5)
    expect(state.workers[0]!.state).toBe("killed (SIGKILL)")
  })
})
