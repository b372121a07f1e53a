/**
 * What the demo's parent and its worker processes say to each other. The parent passes a worker its settings as one
 * JSON environment variable and commands as lines on its stdin; the worker reports every step as one JSON line on its
 * stdout (logs go to stderr). A worker exits when its stdin closes, so a dead parent leaves no orphans.
 *
 * @since 1.0.0
 */
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import * as Schema from "effect/Schema"
import * as EffectLine from "./effectLine.js"

/**
 * The environment variable that carries a worker's settings.
 *
 * @since 1.0.0
 * @category constants
 */
export const settingsVariable = "LEASEHOLD_DEMO_WORKER"

/**
 * @since 1.0.0
 * @category models
 */
export const WorkerSettings = Schema.Struct({
  ...NodeProgram.LockWorkerSettings.fields,
  /** The ledger item's key, in the lock table: the shared state of the sections. */
  ledgerKey: Schema.String,
  /** How long a write ordered slow by the parent ("slow-write") stays in flight before it reaches the ledger. */
  slowWriteMs: Schema.Int
})

/**
 * @since 1.0.0
 * @category models
 */
export type WorkerSettings = typeof WorkerSettings.Type

/**
 * Lines the parent writes to a worker's stdin.
 *
 * @since 1.0.0
 * @category models
 */
export type WorkerCommand = "go" | "slow-write" | "stop"

/**
 * What a worker reports; times are epoch ms on the host's clock (all workers share one host with the parent).
 *
 * @since 1.0.0
 * @category models
 */
export const WorkerEvent = EffectLine.Union([
  /** Started, waiting for "go", on this line's `effect` version and this Node. */
  Schema.TaggedStruct("Ready", { worker: Schema.Int, pid: Schema.Int, effect: Schema.String, node: Schema.String }),
  /** Asking for the lock. */
  Schema.TaggedStruct("Waiting", { worker: Schema.Int, at: Schema.Number }),
  /** Holding the lock with `fence`, inside the critical section. */
  Schema.TaggedStruct("Entered", { worker: Schema.Int, fence: Schema.Number, at: Schema.Number }),
  /** Read the ledger (a fenced read: it also raised the ledger's fence to ours). */
  Schema.TaggedStruct("Read", { worker: Schema.Int, fence: Schema.Number, value: Schema.Number, at: Schema.Number }),
  /** The write of `value` is on its way; `slow` when the parent ordered this write to stay in flight for a while. */
  Schema.TaggedStruct("Writing", {
    worker: Schema.Int,
    fence: Schema.Number,
    value: Schema.Number,
    slow: Schema.Boolean,
    at: Schema.Number
  }),
  /** A completed section: entered at `start`, read `read`, sent the write of `read + 1` at `writeSentAt`, accepted. */
  Schema.TaggedStruct("Committed", {
    worker: Schema.Int,
    fence: Schema.Number,
    start: Schema.Number,
    writeSentAt: Schema.Number,
    end: Schema.Number,
    read: Schema.Number
  }),
  /** The ledger refused a write (or fenced read) because a higher fence had already touched it. */
  Schema.TaggedStruct("WriteRejected", {
    worker: Schema.Int,
    fence: Schema.Number,
    step: EffectLine.Literals(["read", "write"]),
    at: Schema.Number
  }),
  /** The lease is at risk (renews are failing) or held again after being at risk. */
  Schema.TaggedStruct("Status", {
    worker: Schema.Int,
    fence: Schema.Number,
    status: EffectLine.Literals(["held", "at-risk"]),
    remainingMs: Schema.Number,
    at: Schema.Number
  }),
  /** The lease was lost and the section interrupted (`Lock.withLock` failed with `LockLost`). */
  Schema.TaggedStruct("Lost", {
    worker: Schema.Int,
    fence: Schema.Number,
    reason: EffectLine.Literals(["expired", "stolen", "freed", "released", "handedOff"]),
    at: Schema.Number
  }),
  /** Stopped on request; the process exits next. */
  Schema.TaggedStruct("Done", { worker: Schema.Int, committed: Schema.Int })
])

/**
 * @since 1.0.0
 * @category models
 */
export type WorkerEvent = typeof WorkerEvent.Type

/**
 * @since 1.0.0
 * @category codecs
 */
export const encodeSettings = Schema.encodeSync(EffectLine.fromJsonString(WorkerSettings))

/**
 * @since 1.0.0
 * @category codecs
 */
export const encodeEvent = Schema.encodeSync(EffectLine.fromJsonString(WorkerEvent))

/**
 * @since 1.0.0
 * @category codecs
 */
export const decodeEvent = Schema.decodeUnknownOption(EffectLine.fromJsonString(WorkerEvent))
