/**
 * The `check:safety` command: argument parsing and printing, kept apart from `bin/` so that it is type-checked.
 *
 * @internal
 */
import * as SafetyChecker from "../SafetyChecker.js"
import * as Simulation from "../Simulation.js"

const modes = Simulation.modes

const usage = `usage: check:safety [--schedules N] [--from N] [--mode ${modes.join("|")}] [--no-shrink] ` +
  "| --seed N --replay [--mode M]"

/** Failures shrunk (and shown) after a batch: each shrink takes up to a few hundred runs. */
const shown = 5

/** Runs the command; returns the exit code. @internal */
export const main = (argv: ReadonlyArray<string>, print: (line: string) => void): number => {
  const flags = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("--")) {
      print(usage)
      return 2
    }
    const next = argv[i + 1]
    if (next !== undefined && !next.startsWith("--")) {
      flags.set(arg.slice(2), next)
      i++
    } else {
      flags.set(arg.slice(2), true)
    }
  }
  const int = (name: string, fallback: number): number | undefined => {
    const value = flags.get(name)
    if (value === undefined) return fallback
    const n = typeof value === "string" ? Number(value) : NaN
    return Number.isInteger(n) && n >= 0 ? n : undefined
  }
  const modeFlag = flags.get("mode")
  const mode = typeof modeFlag === "string" && (modes as ReadonlyArray<string>).includes(modeFlag)
    ? modeFlag as Simulation.Mode
    : undefined
  const schedules = int("schedules", 200)
  const from = int("from", 1)
  const seed = int("seed", -1)
  if (schedules === undefined || from === undefined || seed === undefined || (modeFlag !== undefined && !mode)) {
    print(usage)
    return 2
  }
  const modeArg = mode === undefined ? "" : ` --mode ${mode}`

  if (seed >= 0) {
    const report = SafetyChecker.checkSchedule(Simulation.generate(seed, { mode }))
    print(SafetyChecker.formatHistory(report.history))
    print(`expected to hold: ${report.expected.join(", ")}`)
    for (const a of report.anomalies) print(`beyond the assumptions (expected): ${a.invariant}: ${a.message}`)
    for (const v of report.violations) print(`VIOLATION ${v.invariant}: ${v.message}`)
    if (report.violations.length > 0 && flags.get("replay") !== true) {
      const shrunk = SafetyChecker.checkSchedule(
        SafetyChecker.shrink(report.history.schedule, SafetyChecker.failsLike(report))
      )
      print("\nshrunk:")
      print(SafetyChecker.formatHistory(shrunk.history))
      for (const v of shrunk.violations) print(`VIOLATION ${v.invariant}: ${v.message}`)
    }
    print(report.violations.length === 0 ? "no violations" : `${report.violations.length} violations`)
    return report.violations.length === 0 ? 0 : 1
  }

  const summary = SafetyChecker.runMany({
    from,
    count: schedules,
    mode,
    shrink: flags.get("no-shrink") !== true,
    maxShrinks: shown,
    onProgress: (done) => {
      if (done % 1000 === 0) print(`  ... ${done} schedules`)
    }
  })
  print(`schedules: ${summary.schedules} (seeds ${from}..${from + schedules - 1}) in ${summary.elapsedMs} ms`)
  print(`  by mode/takeover: ${Object.entries(summary.byMode).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  print(`sections checked: ${summary.sections}; fenced writes: ${summary.writes}; pauses: ${summary.pauses}`)
  print(`faults injected: ${Object.entries(summary.faultsByKind).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  print(`stale writes rejected by the fenced resource: ${summary.staleWritesRejected}`)
  const counts = (tally: Partial<Record<SafetyChecker.Invariant, number>>) => {
    const entries = Object.entries(tally)
    return entries.length === 0 ? "none" : entries.map(([k, v]) => `${k} ${v}`).join(", ")
  }
  print("by class:")
  for (const m of modes) {
    const c = summary.byClass[m]
    if (c === undefined) continue
    const late = (what: string, t: SafetyChecker.LateTally) =>
      t.delivered === 0 ? "" : `late writes delivered on ${what} ${t.delivered} (after their sender wrote again ` +
        `${t.afterLaterWrite}, gave back ${t.afterGiveBack}, acquired ${t.afterAcquired}, released ${t.afterRelease})`
    const extra = [
      c.stealsPlanned > 0 ? `force releases ${c.steals} of ${c.stealsPlanned} cleared a holder` : "",
      c.clockSteps > 0 ? `clock steps ${c.clockSteps}` : "",
      c.children > 0 ? `children ${c.children} (${c.childrenBorrowing} on the parent's lease)` : "",
      c.badOptions > 0 ? `bad options ${c.badOptions}` : "",
      c.permitSections > 0
        ? `under permits ${c.permitSections} (${c.permitTakeovers} removed holders whose leases were over)`
        : "",
      late("locks", c.lateOnLocks),
      late("semaphores", c.lateOnSemaphores)
    ].filter((x) => x !== "").map((x) => `; ${x}`).join("")
    print(
      `  ${m}: ${c.schedules} schedules; sections ${c.sections}; writes ${c.writes}; faults ${c.faults}; ` +
        `pauses ${c.pauses}${extra}`
    )
    print(`    violations: ${c.failed} schedules (${counts(c.violations)})`)
    print(`    beyond the assumptions: ${counts(c.anomalies)}`)
    if (c.failingSeeds.length > 0) print(`    first failing seeds: ${c.failingSeeds.join(" ")}`)
  }
  print("beyond the assumptions (schedules breaking each invariant the mode does not promise):")
  for (const [key, tally] of Object.entries(summary.anomalies)) {
    const entries = Object.entries(tally)
    print(`  ${key}: ${entries.length === 0 ? "nothing broke" : entries.map(([k, v]) => `${k} ${v}`).join(", ")}`)
  }
  print(`violations: ${summary.failures.length}`)
  if (summary.failures.length > 0) {
    const combos = new Map<string, number>()
    for (const f of summary.failures) {
      const key = [...new Set(f.violations.map((v) => v.invariant))].sort().join("+")
      combos.set(key, (combos.get(key) ?? 0) + 1)
    }
    print(`  by invariant: ${[...combos].map(([k, v]) => `${k} ${v}`).join(", ")}`)
    const seeds = summary.failures.map((f) => f.seed)
    print(`  failing seeds: ${seeds.slice(0, 200).join(" ")}${seeds.length > 200 ? " ..." : ""}`)
    print(`  (the first ${Math.min(shown, summary.failures.length)} are shrunk and shown below)`)
  }
  for (const failure of summary.failures.slice(0, shown)) {
    print(
      `\nseed ${failure.seed} (${failure.mode}): ${failure.violations[0]!.invariant}: ${failure.violations[0]!.message}`
    )
    print(`replay: npm run check:safety -- --seed ${failure.seed}${modeArg} --replay`)
    print("shrunk to:")
    print(SafetyChecker.formatHistory(failure.shrunk.history))
  }
  return summary.failures.length === 0 ? 0 : 1
}
