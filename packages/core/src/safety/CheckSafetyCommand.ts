/**
 * The `check:safety` command without a runtime: its arguments, and the text it prints for one replayed seed or for a
 * batch. Each Effect line gives it the `run` of its own simulation.
 *
 * @since 1.0.0
 */
import * as Generate from "../simulation/Generate.js"
import type * as History from "../simulation/History.js"
import * as Schedule from "../simulation/Schedule.js"
import * as Batch from "./Batch.js"
import { formatHistory } from "./FormatHistory.js"
import type * as Invariant from "./Invariant.js"
import * as Report from "./Report.js"
import * as Shrink from "./Shrink.js"
import type * as Tally from "./Tally.js"

const usage = `usage: check:safety [--schedules N] [--from N] [--mode ${Schedule.modes.join("|")}] [--no-shrink] ` +
  "| --seed N --replay [--mode M]"

/** Failures shrunk (and shown) after a batch: each shrink takes up to a few hundred runs. */
const shown = 5

/** Failing seeds a batch lists: the rest are counted. */
const listedSeeds = 200

/** Schedules between two progress lines of a batch. */
const progressEvery = 1000

/**
 * What the command was asked: one seed to replay, or a batch.
 *
 * @since 1.0.0
 * @category models
 */
export type Command =
  | {
    readonly _tag: "Replay"
    readonly seed: number
    readonly mode: Schedule.Mode | undefined
    /** Only replay: do not shrink a failure. */
    readonly replay: boolean
  }
  | {
    readonly _tag: "Batch"
    readonly from: number
    readonly schedules: number
    readonly mode: Schedule.Mode | undefined
    readonly shrink: boolean
  }

/**
 * The command `argv` asks for, or `undefined` if it is not one the usage line allows.
 *
 * @since 1.0.0
 * @category parsing
 */
export const parse = (argv: ReadonlyArray<string>): Command | undefined => {
  const flags = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("--")) return undefined
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
  const mode = typeof modeFlag === "string" && (Schedule.modes as ReadonlyArray<string>).includes(modeFlag)
    ? modeFlag as Schedule.Mode
    : undefined
  const schedules = int("schedules", 200)
  const from = int("from", 1)
  const seed = int("seed", -1)
  if (schedules === undefined || from === undefined || seed === undefined || (modeFlag !== undefined && !mode)) {
    return undefined
  }
  if (seed >= 0) return { _tag: "Replay", seed, mode, replay: flags.get("replay") === true }
  return { _tag: "Batch", from, schedules, mode, shrink: flags.get("no-shrink") !== true }
}

/** Replays one seed: its history, its findings, and the shrunk schedule of a failure unless only replaying. */
const replay = (
  command: Extract<Command, { readonly _tag: "Replay" }>,
  print: (line: string) => void,
  run: History.Run
): number => {
  const report = Report.checkSchedule(Generate.generate(command.seed, { mode: command.mode }), run)
  print(formatHistory(report.history))
  print(`expected to hold: ${report.expected.join(", ")}`)
  for (const a of report.anomalies) print(`beyond the assumptions (expected): ${a.invariant}: ${a.message}`)
  for (const v of report.violations) print(`VIOLATION ${v.invariant}: ${v.message}`)
  if (report.violations.length > 0 && !command.replay) {
    const shrunk = Report.checkSchedule(
      Shrink.shrink(report.history.schedule, Batch.failsLike(report, run)),
      run
    )
    print("\nshrunk:")
    print(formatHistory(shrunk.history))
    for (const v of shrunk.violations) print(`VIOLATION ${v.invariant}: ${v.message}`)
  }
  print(report.violations.length === 0 ? "no violations" : `${report.violations.length} violations`)
  return report.violations.length === 0 ? 0 : 1
}

const counts = (tally: Partial<Record<Invariant.Invariant, number>>) => {
  const entries = Object.entries(tally)
  return entries.length === 0 ? "none" : entries.map(([k, v]) => `${k} ${v}`).join(", ")
}

const late = (what: string, t: Tally.LateTally) =>
  t.delivered === 0 ? "" : `late writes delivered on ${what} ${t.delivered} (after their sender wrote again ` +
    `${t.afterLaterWrite}, gave back ${t.afterGiveBack}, acquired ${t.afterAcquired}, released ${t.afterRelease})`

/** The uses taking locks together that asked for one store call first, and how those that ran took their locks. */
const transactions = (c: Tally.ClassSummary) =>
  c.transactions === 0 ? "" : `, in one store call first ${c.transactions} (${c.transactionsAtOnce} ran on the ` +
    `locks it took, ${c.transactionsOneAtATime} on locks taken one at a time)`

/** What a batch saw of each class, one paragraph per class. */
const classLines = (summary: Batch.Summary, print: (line: string) => void): void => {
  print("by class:")
  for (const m of Schedule.modes) {
    const c = summary.byClass[m]
    if (c === undefined) continue
    const extra = [
      c.stealsPlanned > 0 ? `force releases ${c.steals} of ${c.stealsPlanned} cleared a holder` : "",
      c.clockSteps > 0 ? `clock steps ${c.clockSteps}` : "",
      c.children > 0 ? `children ${c.children} (${c.childrenBorrowing} on the parent's lease)` : "",
      c.badOptions > 0 ? `bad options ${c.badOptions}` : "",
      c.together > 0
        ? `taking locks together ${c.together} (${c.togetherRan} ran their section)${transactions(c)}`
        : "",
      c.permitSections > 0
        ? `under permits ${c.permitSections} (${c.permitTakeovers} removed holders whose leases were over)`
        : "",
      c.readWrite.reads + c.readWrite.writes > 0
        ? `read locks ${c.readWrite.reads} (${c.readWrite.readsRan} ran their section), write locks ` +
          `${c.readWrite.writes} (${c.readWrite.writesRan} ran), reservations made ${c.readWrite.reservations}, ` +
          `acquisitions that removed holders whose leases were over ${c.readWrite.takeovers}`
        : "",
      c.sessions.opened > 0
        ? `sessions opened ${c.sessions.opened} (lost ${c.sessions.lost}), sections under a session ` +
          `${c.sessions.sectionsUnder} (${c.sessions.permitSectionsUnder} under permits), locks taken over from a ` +
          `session judged dead ${c.sessions.orphanTakeovers} (semaphore holders removed ` +
          `${c.sessions.permitOrphansRemoved})`
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
}

/** The failures of a batch: counted by invariant, listed, and the first few shrunk and shown. */
const failureLines = (summary: Batch.Summary, modeArg: string, print: (line: string) => void): void => {
  print(`violations: ${summary.failures.length}`)
  if (summary.failures.length > 0) {
    const combos = new Map<string, number>()
    for (const f of summary.failures) {
      const key = [...new Set(f.violations.map((v) => v.invariant))].sort().join("+")
      combos.set(key, (combos.get(key) ?? 0) + 1)
    }
    print(`  by invariant: ${[...combos].map(([k, v]) => `${k} ${v}`).join(", ")}`)
    const seeds = summary.failures.map((f) => f.seed)
    print(`  failing seeds: ${seeds.slice(0, listedSeeds).join(" ")}${seeds.length > listedSeeds ? " ..." : ""}`)
    print(`  (the first ${Math.min(shown, summary.failures.length)} are shrunk and shown below)`)
  }
  for (const failure of summary.failures.slice(0, shown)) {
    print(
      `\nseed ${failure.seed} (${failure.mode}): ${failure.violations[0]!.invariant}: ${failure.violations[0]!.message}`
    )
    print(`replay: npm run check:safety -- --seed ${failure.seed}${modeArg} --replay`)
    print("shrunk to:")
    print(formatHistory(failure.shrunk.history))
  }
}

/** Runs a batch and prints what it saw. */
const batch = (
  command: Extract<Command, { readonly _tag: "Batch" }>,
  print: (line: string) => void,
  run: History.Run
): number => {
  const { from, mode, schedules } = command
  const summary = Batch.runMany({
    from,
    count: schedules,
    mode,
    shrink: command.shrink,
    maxShrinks: shown,
    onProgress: (done) => {
      if (done % progressEvery === 0) print(`  ... ${done} schedules`)
    }
  }, run)
  print(`schedules: ${summary.schedules} (seeds ${from}..${from + schedules - 1}) in ${summary.elapsedMs} ms`)
  print(`  by mode/takeover: ${Object.entries(summary.byMode).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  print(`sections checked: ${summary.sections}; fenced writes: ${summary.writes}; pauses: ${summary.pauses}`)
  print(`faults injected: ${Object.entries(summary.faultsByKind).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  print(`stale writes rejected by the fenced resource: ${summary.staleWritesRejected}`)
  classLines(summary, print)
  print("beyond the assumptions (schedules breaking each invariant the mode does not promise):")
  for (const [key, tally] of Object.entries(summary.anomalies)) {
    const entries = Object.entries(tally)
    print(`  ${key}: ${entries.length === 0 ? "nothing broke" : entries.map(([k, v]) => `${k} ${v}`).join(", ")}`)
  }
  failureLines(summary, mode === undefined ? "" : ` --mode ${mode}`, print)
  return summary.failures.length === 0 ? 0 : 1
}

/**
 * Runs the command on `argv`, printing through `print` and running schedules with `run`; returns the exit code: 0
 * when nothing broke, 1 on a violation, 2 on arguments the usage line does not allow.
 *
 * @since 1.0.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>, print: (line: string) => void, run: History.Run): number => {
  const command = parse(argv)
  if (command === undefined) {
    print(usage)
    return 2
  }
  return command._tag === "Replay" ? replay(command, print, run) : batch(command, print, run)
}
