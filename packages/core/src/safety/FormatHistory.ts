/**
 * A history as text: the schedule, then every event on the true timeline.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"
import * as BadOption from "../simulation/BadOption.js"
import type * as Fault from "../simulation/Fault.js"
import type * as History from "../simulation/History.js"
import type * as LateDelivery from "../simulation/LateDelivery.js"
import type * as Schedule from "../simulation/Schedule.js"
import * as SectionRecord from "../simulation/SectionRecord.js"

/** The duration of a fault, if it has one, and when the sender of a held write gives up. */
const ms = (f: Fault.Fault) =>
  (f.ms === undefined ? "" : ` ${f.ms}ms`) + (f.giveUpMs === undefined ? "" : ` (sender gives up at ${f.giveUpMs}ms)`)

/** What a held write's sender had done to the same name by the time it was delivered, in words. */
const afterWords: Record<LateDelivery.LateAfter, string> = {
  laterWrite: "wrote again",
  giveBack: "gave an acquire back",
  acquired: "acquired",
  released: "released"
}

/** A held write as it was delivered. */
const delivery = (d: LateDelivery.DeliveryRecord) => {
  const after = d.after.length === 0 ? "" : `; since then its sender ${d.after.map((a) => afterWords[a]).join(", ")}`
  const giveBack = d.call.operation.startsWith("release") && d.fence === undefined ? " (a give-back)" : ""
  const what = d.together === undefined
    ? target(d.name, d.semaphore ? 1 : undefined)
    : [d.name, ...d.together].map((name) => target(name, undefined)).join(", ")
  return `${d.call.process} ${d.call.operation} #${d.call.nth}${giveBack} of ${what}, ` +
    `sent at ${d.sentAt}, delivered late (${d.fault.kind}): ${d.outcome}${after}`
}

/** How a wall clock steps, in words. */
const clockStep = (x: Schedule.ClockStep) =>
  x.kind === "freeze" ? `freezes for ${x.ms} ms` : `jumps ${x.ms > 0 ? "+" : ""}${x.ms} ms`

/** What a section or write is about: a lock's name, a semaphore's, or a read/write lock's (held in `mode`). */
const target = (name: string, permits: number | undefined, mode?: ReadWriteMode.Mode) =>
  mode !== undefined ? `read/write lock "${name}"` : permits === undefined ? `"${name}"` : `semaphore "${name}"`

/** The call by which a planned section takes a read/write lock in `mode`. */
const readWriteApi = (api: Schedule.Api, mode: ReadWriteMode.Mode) =>
  api === "withLock"
    ? `ReadWriteLock.${mode === "read" ? "withReadLock" : "withWriteLock"}`
    : `ReadWriteLock.${mode === "read" ? "acquireRead" : "acquireWrite"}`

/** How a planned section takes what it uses. */
const apiOf = (x: Schedule.SectionSpec) =>
  x.readWrite !== undefined
    ? readWriteApi(x.api, x.readWrite)
    : x.semaphore !== undefined
    ? `${x.api === "withLock" ? "Semaphore.withPermits" : "Semaphore.acquire"}, ${x.semaphore.permits} of ` +
      `${x.semaphore.limit} permits`
    : x.together !== undefined
    ? `Lock.withLocks${x.transaction === true ? " with transaction" : ""}`
    : x.api === "acquireInTimeout"
    ? `${x.api}(${x.timeoutMs} ms)`
    : x.api

/** The schedule: timings, processes, planned sections, faults and force releases. */
const scheduleLines = (s: Schedule.Schedule): Array<string> => {
  const lines: Array<string> = [
    `schedule seed=${s.seed} mode=${s.mode} takeover=${s.takeover} lease=${s.timings.leaseMs}ms ` +
    `heartbeat=${s.timings.heartbeatMs}ms safetyMargin=${s.timings.safetyMarginMs}ms ` +
    `maxClockSkew=${s.timings.maxClockSkewMs}ms`
  ]
  for (const p of s.processes) {
    const pauses = p.pauses.map((x) => `${x.at}+${x.ms}ms`).join(", ") || "none"
    const steps = (p.clockSteps ?? []).map((x) => `; wall clock ${clockStep(x)} at ${x.at}`).join("")
    lines.push(`  process ${p.id}: clock offset ${p.offsetMs} ms; pauses ${pauses}${steps}`)
  }
  s.sections.forEach((x, i) => {
    const bad = x.badOption === undefined
      ? ""
      : `, bad option ${BadOption.describe(x.badOption, s.timings).show}`
    const child = x.child === undefined
      ? ""
      : `; forks child #${s.sections.length + i}: ${x.child.afterMs} ms in, ${
        x.child.nested ? "withLock(withLock(...))" : "withLock(...)"
      }, ${x.child.steps} x ${x.child.stepMs} ms`
    const handOff = x.handOff === undefined
      ? ""
      : `; hands off after ${x.handOff.afterSteps} steps to ${x.handOff.to}, resumed ${x.handOff.delayMs} ms later`
    const updates = x.updates === undefined
      ? ""
      : `; updates its data after each write, under Effect.timeout(${x.updates.timeoutMs} ms)`
    const what = [x.name, ...(x.together ?? [])].map((name) => target(name, x.semaphore?.permits, x.readWrite))
      .join(", ")
    lines.push(
      `  section #${i}: ${x.process} ${what} at ${x.at} via ${apiOf(x)}, wait ${x.wait}, ${x.steps} x ${x.stepMs} ms` +
        bad + child + handOff + updates + region(x.region, i, s.sections.length)
    )
  })
  for (const f of s.faults) {
    lines.push(`  fault: ${f.process ?? "any"} ${f.operation} #${f.nth}: ${f.fault.kind}${ms(f.fault)}`)
  }
  for (const x of s.steals ?? []) lines.push(`  operator: force release of "${x.name}" at ${x.at}`)
  return lines
}

/** Every event of the history as [true time, order of discovery, text]. */
const eventsOf = (history: History.History): Array<[number, number, string]> => {
  const s = history.schedule
  const events: Array<[number, number, string]> = []
  let order = 0
  for (const p of s.processes) {
    for (const x of p.pauses) {
      events.push([x.at, order++, `${p.id} pauses for ${x.ms} ms`])
      events.push([x.at + x.ms, order++, `${p.id} resumes`])
    }
    for (const x of p.clockSteps ?? []) events.push([x.at, order++, `${p.id}'s wall clock ${clockStep(x)}`])
  }
  for (const x of history.steals ?? []) {
    const cleared = x.fence === undefined ? "nothing held" : `cleared ${x.holder} (fence ${x.fence})`
    events.push([x.at, order++, `operator force-releases "${x.name}": ${cleared}`])
  }
  for (const x of history.sections) {
    if (x.lostAt !== undefined) events.push([x.lostAt, order++, `${x.process}#${x.index}'s lease is lost`])
    if (x.handedOffAt !== undefined) {
      events.push([x.handedOffAt, order++, `${x.process}#${x.index} hands "${x.name}" off`])
    }
    if (x.resumedAt !== undefined) {
      const to = s.sections[x.index]?.handOff?.to
      events.push([x.resumedAt, order++, `${to} resumes the lease of ${x.process}#${x.index} on "${x.name}"`])
    }
    if (x.outerEnteredAt !== undefined) {
      events.push([x.outerEnteredAt, order++, `${x.process}#${x.index} holds "${x.name}" in its outer withLock`])
    }
  }
  for (const f of history.faults) {
    events.push([
      f.at,
      order++,
      `${f.call.process} ${f.call.operation} #${f.call.nth}: fault ${f.fault.kind}${ms(f.fault)}`
    ])
  }
  for (const d of history.deliveries ?? []) events.push([d.at, order++, delivery(d)])
  for (const x of history.sections) {
    if (x.start !== undefined) {
      const borrowed = x.borrowedFrom === undefined ? "" : ` (the lease of #${x.borrowedFrom})`
      const permits = x.mode !== undefined
        ? ` to ${x.mode}`
        : x.permits === undefined
        ? ""
        : ` and ${x.permits} of ${x.limit} permits`
      const tookOver = (x.tookOver ?? 0) === 0
        ? ""
        : `, removing ${x.tookOver} permits of holders whose leases were over`
      const taken = x.takenAtOnce === undefined
        ? ""
        : x.takenAtOnce
        ? ", its locks taken in one store call"
        : ", its locks taken one at a time"
      events.push([
        x.start,
        order++,
        `${x.process}#${x.index} enters ${
          target(x.name, x.permits, x.mode)
        } with fence ${x.fence}${permits}${borrowed}${tookOver}${taken}`
      ])
    }
  }
  for (const w of history.writes) {
    const writer = w.by === undefined ? `section #${w.section}` : `child #${w.by} (for section #${w.section})`
    const verdict = w.accepted ? "accepted" : "REJECTED (stale)"
    const access = w.mode === "read" ? "reads" : "writes"
    events.push([
      w.at,
      order++,
      w.mode !== undefined
        ? `${writer} ${access} under the ${w.mode} lock of "${w.name}", fence ${w.fence}: ${verdict}`
        : w.permits === undefined
        ? `${writer} writes "${w.name}" fence ${w.fence}: ${verdict}`
        : `${writer} writes under ${w.permits} permits of semaphore "${w.name}", fence ${w.fence}`
    ])
  }
  for (const x of history.sections) {
    const status = x.leaseStatus === undefined ? "" : ` (lease ${x.leaseStatus})`
    const detail = x.detail === undefined ? "" : ` - ${x.detail.split("\n")[0]}`
    const verb = x.start === undefined ? "gives up on" : "leaves"
    events.push([
      x.end ?? x.finishedAt ?? history.endedAt,
      order++,
      `${x.process}#${x.index} ${verb} ${target(x.name, x.permits, x.mode)}: ${x.outcome}${status}${detail}`
    ])
  }
  return events
}

/** Where a section's region stands, as a history prints it. */
const region = (r: Schedule.RegionSpec | undefined, index: number, count: number): string => {
  if (r === undefined) return ""
  if (r.kind === "detached") {
    return `; runs in a worker forked detached from a Lock.scoped region (#${
      SectionRecord.indexOf("bystander", index, count)
    }) whose code ends ${r.outerEnds ? "at once" : `after ${r.outerMs} ms`}, then runs on ${r.outerMs} ms`
  }
  const how = r.kind === "sibling" ? "a sibling job of its region" : "a fiber its region forks before the acquire"
  return `; ${how} (#${SectionRecord.indexOf(r.kind, index, count)}) takes it ${r.afterMs} ms in, ` +
    `wait ${r.waitMs}, ${r.steps} x ${r.stepMs} ms`
}

/**
 * A readable history: the schedule, then every event in true-time order.
 *
 * @since 1.0.0
 * @category formatting
 */
export const formatHistory = (history: History.History): string => {
  const lines = scheduleLines(history.schedule)
  const timeline = eventsOf(history).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  lines.push("history (true ms):")
  for (const [at, , text] of timeline) lines.push(`  ${String(at).padStart(6)}  ${text}`)
  return lines.join("\n")
}
