/**
 * What the parent knows about the run, folded from the workers' reports and its own actions. Pure: the live view
 * renders it, the incidents wait on it.
 *
 * @since 1.0.0
 */
import type * as Protocol from "./Protocol.js"

/**
 * @since 1.0.0
 * @category models
 */
export type WorkerState =
  | "starting"
  | "ready"
  | "waiting"
  | "holding"
  | "writing"
  | "at risk"
  | "paused (SIGSTOP)"
  | "killed (SIGKILL)"
  | "lost lease"
  | "done"

/**
 * @since 1.0.0
 * @category models
 */
export interface WorkerView {
  readonly id: number
  readonly pid: number | undefined
  readonly state: WorkerState
  readonly fence: number | undefined
  readonly committed: number
  readonly rejected: number
}

/**
 * @since 1.0.0
 * @category models
 */
export interface State {
  /** The Effect line the workers run. */
  readonly line: string
  readonly startedAt: number
  readonly durationMs: number
  readonly workers: ReadonlyArray<WorkerView>
  readonly events: ReadonlyArray<Protocol.WorkerEvent>
  /** Notable lines, oldest first: incidents and what they caused. */
  readonly log: ReadonlyArray<{ readonly at: number; readonly text: string }>
  readonly phase: string
  readonly serverUp: boolean
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const initial = (workers: number, startedAt: number, durationMs: number, line: string): State => ({
  line,
  startedAt,
  durationMs,
  workers: Array.from({ length: workers }, (_, id) => ({
    id,
    pid: undefined,
    state: "starting",
    fence: undefined,
    committed: 0,
    rejected: 0
  })),
  events: [],
  log: [],
  phase: "starting workers",
  serverUp: true
})

const updateWorker = (state: State, id: number, f: (worker: WorkerView) => WorkerView): State => ({
  ...state,
  workers: state.workers.map((worker) => worker.id === id ? f(worker) : worker)
})

/** States the parent set and a late report must not undo. */
const final = (state: WorkerState) => state === "killed (SIGKILL)" || state === "done"

/**
 * @since 1.0.0
 * @category combinators
 */
export const addLog = (state: State, at: number, text: string): State => ({
  ...state,
  log: [...state.log, { at, text }]
})

/**
 * @since 1.0.0
 * @category combinators
 */
export const setWorkerState = (state: State, id: number, workerState: WorkerState): State =>
  updateWorker(state, id, (worker) => ({ ...worker, state: workerState }))

const describe = (event: Protocol.WorkerEvent): string | undefined => {
  switch (event._tag) {
    case "WriteRejected":
      return `worker ${event.worker}: ledger ${event.step} with stale fence ${event.fence} REJECTED by the fence`
    case "Lost":
      return `worker ${event.worker}: lease (fence ${event.fence}) lost (${event.reason}), section interrupted`
    case "Status":
      return event.status === "at-risk"
        ? `worker ${event.worker}: lease at risk, ${event.remainingMs} ms left to renew`
        : `worker ${event.worker}: renewed, lease held again`
    default:
      return undefined
  }
}

/**
 * Folds one worker report into the state.
 *
 * @since 1.0.0
 * @category combinators
 */
export const apply = (state: State, event: Protocol.WorkerEvent, now: number): State => {
  const withEvent = { ...state, events: [...state.events, event] }
  const line = describe(event)
  const logged = line === undefined ? withEvent : addLog(withEvent, now, line)
  return updateWorker(logged, event.worker, (worker): WorkerView => {
    if (final(worker.state)) return worker
    switch (event._tag) {
      case "Ready":
        return { ...worker, pid: event.pid, state: "ready" }
      case "Waiting":
        return { ...worker, state: "waiting", fence: undefined }
      case "Entered":
      case "Read":
        return { ...worker, state: "holding", fence: event.fence }
      case "Writing":
        return { ...worker, state: worker.state === "paused (SIGSTOP)" ? worker.state : "writing" }
      case "Committed":
        return { ...worker, state: "holding", committed: worker.committed + 1 }
      case "WriteRejected":
        return { ...worker, rejected: worker.rejected + 1 }
      case "Status":
        return { ...worker, state: event.status === "at-risk" ? "at risk" : "holding" }
      case "Lost":
        return { ...worker, state: "lost lease" }
      case "Done":
        return { ...worker, state: "done" }
    }
  })
}

/**
 * What the workers said they run on, each different answer once: "effect 4.1.0, Node v22.23.3".
 *
 * @since 1.0.0
 * @category getters
 */
export const runtimes = (state: State): ReadonlyArray<string> => [
  ...new Set(
    state.events.flatMap((event) => event._tag === "Ready" ? [`effect ${event.effect}, Node ${event.node}`] : [])
  )
]

/**
 * The worker inside its section right now, as the reports tell it.
 *
 * @since 1.0.0
 * @category getters
 */
export const holder = (state: State): WorkerView | undefined =>
  state.workers.find((worker) =>
    worker.state === "holding" || worker.state === "writing" || worker.state === "at risk" ||
    worker.state === "paused (SIGSTOP)"
  )
