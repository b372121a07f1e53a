import { describe, expect, it } from "@effect/vitest"
import type * as Ledger from "../src/Ledger.js"
import type * as Protocol from "../src/Protocol.js"
import * as Verdict from "../src/Verdict.js"

type Committed = Extract<Protocol.WorkerEvent, { readonly _tag: "Committed" }>

/** `n` sections by workers 0, 1, 2, ... in turn, each 100 ms long, 10 ms apart, fences from 100. */
const sections = (n: number): Array<Committed> =>
  Array.from({ length: n }, (_, i) => ({
    _tag: "Committed",
    worker: i % 3,
    fence: 100 + i,
    start: 1_000 + i * 110,
    writeSentAt: 1_000 + i * 110 + 90,
    end: 1_000 + i * 110 + 100,
    read: i
  }))

const ledgerOf = (committed: ReadonlyArray<Committed>): Ledger.Snapshot => ({
  value: committed.length,
  fence: committed.at(-1)?.fence ?? 0,
  history: committed.map((section, i) => ({ fence: section.fence, value: i + 1, worker: section.worker }))
})

const good = (): Verdict.Input => {
  const committed = sections(6)
  return {
    leaseMs: 2_000,
    maxClockSkewMs: 500,
    takeoverAllowanceMs: 800,
    events: committed,
    ledger: ledgerOf(committed),
    incidents: [],
    exits: [{ worker: 0, exit: 0 }, { worker: 1, exit: 0 }, { worker: 2, exit: 0 }],
    storeCalls: new Map([["UpdateItem", 30], ["GetItem", 4]])
  }
}

const failed = (verdict: Verdict.Verdict) => verdict.checks.filter((check) => !check.ok).map((check) => check.label)

describe("Verdict", () => {
  it("passes a clean history and says so", () => {
    const verdict = Verdict.compute(good())
    expect(failed(verdict)).toEqual([])
    expect(verdict.ok).toBe(true)
    const lines = Verdict.format(verdict)
    expect(lines).toContain("PASS  overlapping critical sections: 0")
    expect(lines.at(-1)).toBe("VERDICT: PASS (every check holds)")
    expect(lines.some((line) => line.includes("store calls (server side): UpdateItem 30, GetItem 4"))).toBe(true)
  })

  it("fails on overlapping sections", () => {
    const input = good()
    const committed = [...sections(6)]
    // Section 3 starts before section 2 sent its write.
    committed[3] = { ...committed[3]!, start: committed[2]!.writeSentAt - 5 }
    const verdict = Verdict.compute({ ...input, events: committed, ledger: ledgerOf(committed) })
    expect(failed(verdict)).toEqual(["overlapping critical sections"])
    expect(Verdict.overlaps(committed)).toHaveLength(1)
    expect(Verdict.format(verdict).at(-1)).toBe("VERDICT: FAIL")
  })

  it("fails on a lost update: two sections read the same value", () => {
    const input = good()
    const history = input.ledger.history.map((entry, i) => i === 4 ? { ...entry, value: 4 } : entry)
    const verdict = Verdict.compute({ ...input, ledger: { ...input.ledger, history, value: 5 } })
    expect(failed(verdict)).toEqual(["ledger value = completed sections", "no lost update, fences increasing"])
  })

  it("fails when the ledger accepted a write no completed section reported (a stale write got through)", () => {
    const input = good()
    const stale = { fence: 99, value: 7, worker: 2 }
    const ledger = { ...input.ledger, value: 7, history: [...input.ledger.history, stale] }
    const verdict = Verdict.compute({
      ...input,
      ledger,
      incidents: [{ _tag: "Pause", worker: 2, fence: 99, stoppedAt: 1_200, resumedAt: 4_000, takeoverFence: 101 }]
    })
    expect(failed(verdict)).toEqual([
      "ledger value = completed sections",
      "no lost update, fences increasing",
      "every accepted write came from a section that completed",
      "SIGSTOP of worker 2 for 2.80 s: late write"
    ])
  })

  it("passes a pause whose late write was rejected and whose lease was lost", () => {
    const input = good()
    const events: Array<Protocol.WorkerEvent> = [
      ...input.events,
      { _tag: "WriteRejected", worker: 2, fence: 99, step: "write", at: 4_001 },
      { _tag: "Lost", worker: 2, fence: 99, reason: "stolen", at: 4_002 }
    ]
    const verdict = Verdict.compute({
      ...input,
      events,
      incidents: [{ _tag: "Pause", worker: 2, fence: 99, stoppedAt: 1_200, resumedAt: 4_000, takeoverFence: 101 }]
    })
    expect(failed(verdict)).toEqual([])
    expect(verdict.facts[0]).toContain("stale writes rejected by the fence: 1")
  })

  it("fails a pause that produced no rejected write", () => {
    const input = good()
    const verdict = Verdict.compute({
      ...input,
      events: [...input.events, { _tag: "Lost", worker: 2, fence: 99, reason: "expired", at: 4_002 }],
      incidents: [{ _tag: "Pause", worker: 2, fence: 99, stoppedAt: 1_200, resumedAt: 4_000, takeoverFence: 101 }]
    })
    expect(failed(verdict)).toEqual(["SIGSTOP of worker 2 for 2.80 s: late write"])
  })

  it("checks the takeover after a SIGKILL against lease + skew + allowance", () => {
    const input = good()
    const kill = (after: number): Verdict.Incident => ({
      _tag: "Kill",
      worker: 1,
      fence: 98,
      killedAt: 10_000,
      takeover: { worker: 0, fence: 100, at: 10_000 + after }
    })
    expect(failed(Verdict.compute({ ...input, incidents: [kill(2_900)] }))).toEqual([])
    expect(failed(Verdict.compute({ ...input, incidents: [kill(3_400)] }))).toEqual([
      "SIGKILL of worker 1 in its section: takeover"
    ])
    const none: Verdict.Incident = { _tag: "Kill", worker: 1, fence: 98, killedAt: 10_000, takeover: undefined }
    expect(Verdict.compute({ ...input, incidents: [none] }).ok).toBe(false)
  })

  it("counts a write accepted just before its worker was killed as a completed section", () => {
    const input = good()
    const history = [...input.ledger.history, { fence: 106, value: 7, worker: 1 }]
    const verdict = Verdict.compute({
      ...input,
      ledger: { value: 7, fence: 106, history },
      incidents: [{
        _tag: "Kill",
        worker: 1,
        fence: 106,
        killedAt: 2_000,
        takeover: { worker: 0, fence: 107, at: 4_000 }
      }]
    })
    expect(failed(verdict)).toEqual([])
  })

  it("fails on a worker that exited badly, and on a run with no completed section", () => {
    const input = good()
    expect(failed(Verdict.compute({ ...input, exits: [{ worker: 0, exit: 1 }] }))).toEqual(["workers exited cleanly"])
    const empty = Verdict.compute({ ...input, events: [], ledger: { value: 0, fence: 0, history: [] } })
    expect(failed(empty)).toEqual(["critical sections completed"])
  })

  it("checks that holders at risk during an outage renewed or lost the lock", () => {
    const input = good()
    const outage: Verdict.Incident = { _tag: "Outage", startedAt: 5_000, endedAt: 6_500 }
    const atRisk: Protocol.WorkerEvent = {
      _tag: "Status",
      worker: 1,
      fence: 105,
      status: "at-risk",
      remainingMs: 600,
      at: 6_000
    }
    const held: Protocol.WorkerEvent = { ...atRisk, status: "held", remainingMs: 0, at: 6_600 }
    const lost: Protocol.WorkerEvent = { _tag: "Lost", worker: 1, fence: 105, reason: "expired", at: 6_300 }
    const label = "server unreachable for 1.50 s: holders"
    expect(failed(Verdict.compute({ ...input, events: [...input.events, atRisk, held], incidents: [outage] })))
      .toEqual([])
    expect(failed(Verdict.compute({ ...input, events: [...input.events, atRisk, lost], incidents: [outage] })))
      .toEqual([])
    expect(failed(Verdict.compute({ ...input, events: [...input.events, atRisk], incidents: [outage] })))
      .toEqual([label])
    expect(failed(Verdict.compute({ ...input, incidents: [outage] }))).toEqual([label])
  })
})
