/**
 * The demo's verdict: a pure function from what the workers reported, what the ledger holds and what the incidents
 * did, to a list of checks. Nothing is assumed: every line is computed, and the demo exits 0 only if every check holds.
 *
 * @since 1.0.0
 */
import type * as Ledger from "./Ledger.js"
import type * as Protocol from "./Protocol.js"

/**
 * What an incident did, as the parent observed it.
 *
 * @since 1.0.0
 * @category models
 */
export type Incident =
  /** A holder was SIGKILLed inside its section; `takeover` is the next section of another worker, if any. */
  | {
    readonly _tag: "Kill"
    readonly worker: number
    readonly fence: number
    readonly killedAt: number
    readonly takeover: { readonly worker: number; readonly fence: number; readonly at: number } | undefined
  }
  /** A holder was SIGSTOPped with its write in flight, past its lease, and SIGCONTed after another took over. */
  | {
    readonly _tag: "Pause"
    readonly worker: number
    readonly fence: number
    readonly stoppedAt: number
    readonly resumedAt: number
    /** The fence of the worker that took the lock meanwhile, if one did. */
    readonly takeoverFence: number | undefined
  }
  /** The server stopped answering (requests held) from `startedAt` to `endedAt`. */
  | { readonly _tag: "Outage"; readonly startedAt: number; readonly endedAt: number }
  /** An incident that could not run, and why. */
  | { readonly _tag: "Skipped"; readonly kind: string; readonly why: string }

/**
 * How a worker process ended.
 *
 * @since 1.0.0
 * @category models
 */
export interface WorkerExit {
  readonly worker: number
  /** The exit code, or "killed" for the SIGKILL incident's victim. */
  readonly exit: number | "killed"
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Input {
  readonly leaseMs: number
  readonly maxClockSkewMs: number
  /** Slack for a waiter's poll and process scheduling on a busy machine, added to the takeover bound. */
  readonly takeoverAllowanceMs: number
  readonly events: ReadonlyArray<Protocol.WorkerEvent>
  readonly ledger: Ledger.Snapshot
  readonly incidents: ReadonlyArray<Incident>
  readonly exits: ReadonlyArray<WorkerExit>
  /** Requests the server received, by operation; `undefined` when the endpoint is not behind the counting proxy. */
  readonly storeCalls: ReadonlyMap<string, number> | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Check {
  readonly label: string
  readonly ok: boolean
  readonly detail: string
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Verdict {
  readonly ok: boolean
  readonly checks: ReadonlyArray<Check>
  /** Numbers worth showing that are not pass/fail. */
  readonly facts: ReadonlyArray<string>
}

type Committed = Extract<Protocol.WorkerEvent, { readonly _tag: "Committed" }>
type Status = Extract<Protocol.WorkerEvent, { readonly _tag: "Status" }>

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

/**
 * Pairs of completed sections that overlap in time. A section runs from entering (after the acquiring write
 * returned) to sending its write (before the ledger applied it), so two sections the store serialised never overlap.
 *
 * @since 1.0.0
 * @category checks
 */
export const overlaps = (
  sections: ReadonlyArray<Committed>
): ReadonlyArray<readonly [Committed, Committed]> => {
  const sorted = [...sections].sort((a, b) => a.start - b.start)
  const found: Array<readonly [Committed, Committed]> = []
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j]!.start < sorted[i]!.writeSentAt; j++) {
      found.push([sorted[i]!, sorted[j]!])
    }
  }
  return found
}

/**
 * Computes the verdict.
 *
 * @since 1.0.0
 * @category constructors
 */
export const compute = (input: Input): Verdict => {
  const checks: Array<Check> = []
  const facts: Array<string> = []
  const check = (label: string, ok: boolean, detail: string) => checks.push({ label, ok, detail })
  const committed = input.events.filter((event): event is Committed => event._tag === "Committed")
  const { history } = input.ledger
  // A SIGKILL can land after a section's write was accepted but before its report was printed: such a write is a
  // completed section too, and only such a write may go unreported.
  const killedSections = new Set(
    input.incidents.flatMap((incident) => incident._tag === "Kill" ? [`${incident.worker}/${incident.fence}`] : [])
  )
  const killedButWritten = history.filter((entry) => killedSections.has(`${entry.worker}/${entry.fence}`)).length
  const completed = committed.length + killedButWritten

  check(
    "critical sections completed",
    completed > 0,
    `${completed} by ${new Set(committed.map((section) => section.worker)).size} workers`
  )
  check(
    "ledger value = completed sections",
    input.ledger.value === completed && history.length === completed,
    `ledger ${input.ledger.value}, ${history.length} accepted writes, ${committed.length} sections reported` +
      (killedButWritten > 0 ? ` + ${killedButWritten} written just before its worker was killed` : "")
  )
  const lostUpdates = history.filter((entry, index) => entry.value !== index + 1).length
  const fenceOrder = history.filter((entry, index) => index > 0 && entry.fence <= history[index - 1]!.fence).length
  check(
    "no lost update, fences increasing",
    lostUpdates === 0 && fenceOrder === 0,
    `${lostUpdates} writes that missed an earlier one, ${fenceOrder} writes with a fence not above the last`
  )
  const found = overlaps(committed)
  check(
    "overlapping critical sections",
    found.length === 0,
    found.length === 0
      ? "0"
      : `${found.length}, e.g. worker ${found[0]![0].worker} (fence ${found[0]![0].fence}) and worker ` +
        `${found[0]![1].worker} (fence ${found[0]![1].fence})`
  )
  const reported = new Set(committed.map((section) => `${section.worker}/${section.fence}`))
  const unaccounted = history.filter((entry) =>
    !reported.has(`${entry.worker}/${entry.fence}`) && !killedSections.has(`${entry.worker}/${entry.fence}`)
  )
  check(
    "every accepted write came from a section that completed",
    unaccounted.length === 0,
    unaccounted.length === 0
      ? `${history.length} of ${history.length}`
      : `${unaccounted.length} accepted writes no worker reported, e.g. fence ${unaccounted[0]!.fence}`
  )

  const rejected = input.events.filter((event) => event._tag === "WriteRejected")
  const lost = input.events.filter((event) => event._tag === "Lost")
  const statuses = input.events.filter((event): event is Status => event._tag === "Status")
  const atRisk = statuses.filter((event) => event.status === "at-risk")
  facts.push(
    `stale writes rejected by the fence: ${rejected.length}; leases lost: ${lost.length}; ` +
      `"at risk" reports: ${atRisk.length}`
  )

  for (const incident of input.incidents) {
    switch (incident._tag) {
      case "Kill": {
        const bound = input.leaseMs + input.maxClockSkewMs + input.takeoverAllowanceMs
        const took = incident.takeover === undefined ? undefined : incident.takeover.at - incident.killedAt
        check(
          `SIGKILL of worker ${incident.worker} in its section: takeover`,
          incident.takeover !== undefined && took! <= bound && incident.takeover.fence > incident.fence,
          incident.takeover === undefined
            ? "nobody took over"
            : `worker ${incident.takeover.worker} after ${seconds(took!)} (bound: lease ${seconds(input.leaseMs)} + ` +
              `skew ${seconds(input.maxClockSkewMs)} + ${seconds(input.takeoverAllowanceMs)} poll/scheduling = ` +
              `${seconds(bound)}), fence ${incident.fence} -> ${incident.takeover.fence}`
        )
        break
      }
      case "Pause": {
        const mine = (event: Protocol.WorkerEvent) =>
          event.worker === incident.worker && "fence" in event &&
          event.fence === incident.fence
        const wasRejected = rejected.some(mine)
        const wasLost = lost.find(mine)
        const accepted = history.some((entry) => entry.worker === incident.worker && entry.fence === incident.fence)
        check(
          `SIGSTOP of worker ${incident.worker} for ${seconds(incident.resumedAt - incident.stoppedAt)}: late write`,
          incident.takeoverFence !== undefined && wasRejected && !accepted && wasLost !== undefined,
          `lock taken over (fence ${incident.fence} -> ${incident.takeoverFence ?? "none"}); after SIGCONT: lease ` +
            `${wasLost === undefined ? "NOT reported lost" : `lost (${wasLost.reason})`}, section interrupted, ` +
            `write with fence ${incident.fence} ${accepted ? "ACCEPTED" : wasRejected ? "rejected" : "never attempted"}`
        )
        break
      }
      case "Outage": {
        const during = (at: number) => at >= incident.startedAt && at <= incident.endedAt + input.leaseMs
        const risky = new Set(atRisk.filter((event) => during(event.at)).map((event) => event.worker))
        const lostThen = new Set(lost.filter((event) => during(event.at)).map((event) => event.worker))
        const recovered = statuses.filter((event) => event.status === "held" && during(event.at))
        // Every holder that went at risk came back (renewed) or lost the lock (and was interrupted); none hung on.
        const unresolved = [...risky].filter((worker) =>
          !recovered.some((event) => event.worker === worker) && !lostThen.has(worker)
        )
        check(
          `server unreachable for ${seconds(incident.endedAt - incident.startedAt)}: holders`,
          risky.size > 0 && unresolved.length === 0,
          risky.size === 0
            ? "no holder reported \"at risk\""
            : `at risk: worker ${[...risky].join(", ")}; then renewed: ${
              [...new Set(recovered.map((event) => event.worker))].join(", ") || "none"
            }; lost the lock: ${[...lostThen].join(", ") || "none"}` +
              (unresolved.length > 0 ? `; NEITHER: ${unresolved.join(", ")}` : "")
        )
        break
      }
      case "Skipped":
        facts.push(`incident "${incident.kind}" skipped: ${incident.why}`)
        break
    }
  }

  const unclean = input.exits.filter((exit) => exit.exit !== "killed" && exit.exit !== 0)
  check(
    "workers exited cleanly",
    unclean.length === 0,
    unclean.length === 0
      ? `${input.exits.filter((exit) => exit.exit === 0).length} exited 0, ` +
        `${input.exits.filter((exit) => exit.exit === "killed").length} killed on purpose`
      : unclean.map((exit) => `worker ${exit.worker} exited ${exit.exit}`).join(", ")
  )

  facts.push(
    input.storeCalls === undefined
      ? "store calls: not counted (endpoint not behind the counting proxy)"
      : `store calls (server side): ${
        [...input.storeCalls].sort((a, b) => b[1] - a[1]).map(([operation, count]) => `${operation} ${count}`)
          .join(", ")
      }`
  )
  return { ok: checks.every((c) => c.ok), checks, facts }
}

/**
 * The verdict as lines of text, one per check ("PASS"/"FAIL") and fact.
 *
 * @since 1.0.0
 * @category formatting
 */
export const format = (verdict: Verdict): ReadonlyArray<string> => [
  ...verdict.checks.map((c) => `${c.ok ? "PASS" : "FAIL"}  ${c.label}: ${c.detail}`),
  ...verdict.facts.map((fact) => `      ${fact}`),
  verdict.ok ? "VERDICT: PASS (every check holds)" : "VERDICT: FAIL"
]
