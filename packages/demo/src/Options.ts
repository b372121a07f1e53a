/**
 * The demo's command line: a few flags, parsed by hand (pure, so it is tested without a process).
 *
 * @since 1.0.0
 */
import * as Either from "effect/Either"
import * as Incidents from "./Incidents.js"

/**
 * Which of Leasehold's lines the workers run: Effect 3 (this package's own workers) or Effect 4 (their copies in the
 * Effect 4 project, on effect 4 and that line's packages, under Node 22 or later).
 *
 * @since 1.0.0
 * @category models
 */
export type Line = "3" | "4"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly line: Line
  readonly durationMs: number
  readonly workers: number
  readonly leaseMs: number
  readonly maxClockSkewMs: number
  readonly incidents: ReadonlyArray<Incidents.Kind>
  readonly engine: "dynalite" | "dynamodb-local"
  readonly endpoint: string | undefined
  readonly tableName: string
  /** Plain lines even on a terminal. */
  readonly plain: boolean
  /** The control run: the same workers without the lock. */
  readonly unsafe: boolean
  readonly help: boolean
}

/**
 * The defaults: a run that shows everything in well under a minute on a 2-core machine. The lease and skew are
 * short so that takeovers take seconds, not the production defaults' 40 s (one host, one clock: skew is ~0 here).
 *
 * @since 1.0.0
 * @category constants
 */
export const defaults: Options = {
  line: "3",
  durationMs: 30_000,
  workers: 4,
  leaseMs: 2_000,
  maxClockSkewMs: 500,
  incidents: Incidents.kinds,
  engine: "dynalite",
  endpoint: undefined,
  tableName: "leasehold-demo",
  plain: false,
  unsafe: false,
  help: false
}

/**
 * @since 1.0.0
 * @category constants
 */
export const usage = `Usage: npm run demo -- [options]

  --effect <3|4>        the Effect line the workers run (default 3; 4 runs them on effect 4, under Node 22)
  --duration <time>     how long the workers work (default 30s; e.g. 10s, 1m, 45000ms)
  --workers <n>         worker processes (default 4, at least 2)
  --lease <time>        lock lease (default 2s)
  --skew <time>         maxClockSkew, the clock bound takeovers wait for (default 500ms)
  --incidents <list>    comma-separated: kill,pause,outage (default all), or none
  --engine <name>       dynalite (default) or dynamodb-local (needs Java >= 17)
  --endpoint <url>      use this DynamoDB endpoint instead (e.g. https://dynamodb.eu-west-1.amazonaws.com,
                        with the default AWS credential chain); the table is created if missing
  --table <name>        table name (default leasehold-demo)
  --plain               plain lines, no live redraw (automatic when stdout is not a terminal)
  --unsafe              the control run: the same workers WITHOUT the lock (use with --incidents none); the
                        verdict should fail, showing the checks can
  --help                this text`

const parseTime = (flag: string, text: string): Either.Either<number, string> => {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text.trim())
  if (match === null) return Either.left(`${flag}: "${text}" is not a time (e.g. 30s, 500ms, 1m)`)
  const value = Number(match[1])
  const unit = match[2] ?? "s"
  const ms = Math.round(unit === "ms" ? value : unit === "s" ? value * 1000 : value * 60_000)
  return ms > 0 ? Either.right(ms) : Either.left(`${flag} must be positive`)
}

/**
 * Parses the arguments after `npm run demo --`.
 *
 * @since 1.0.0
 * @category parsing
 */
export const parse = (argv: ReadonlyArray<string>): Either.Either<Options, string> => {
  let options: Options = defaults
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split("=", 2) as [string, string] : [arg]
    const value = (): Either.Either<string, string> => {
      if (inline !== undefined) return Either.right(inline)
      const next = argv[i + 1]
      if (next === undefined) return Either.left(`${flag} needs a value`)
      i++
      return Either.right(next)
    }
    const result: Either.Either<Options, string> = (() => {
      switch (flag) {
        case "--effect":
          return Either.flatMap(value(), (v) =>
            v === "3" || v === "4"
              ? Either.right({ ...options, line: v })
              : Either.left(`--effect: "${v}" is not a line of Leasehold (3 or 4)`))
        case "--duration":
          return Either.map(Either.flatMap(value(), (v) => parseTime(flag, v)), (durationMs) => ({
            ...options,
            durationMs
          }))
        case "--lease":
          return Either.map(Either.flatMap(value(), (v) => parseTime(flag, v)), (leaseMs) => ({ ...options, leaseMs }))
        case "--skew":
          return Either.map(Either.flatMap(value(), (v) => parseTime(flag, v)), (maxClockSkewMs) => ({
            ...options,
            maxClockSkewMs
          }))
        case "--workers":
          return Either.flatMap(value(), (v) => {
            const workers = Number(v)
            return Number.isInteger(workers) && workers >= 2 && workers <= 16
              ? Either.right({ ...options, workers })
              : Either.left(`--workers: "${v}" must be a whole number from 2 to 16`)
          })
        case "--incidents":
          return Either.flatMap(value(), (v) => {
            if (v === "none") return Either.right({ ...options, incidents: [] })
            if (v === "all") return Either.right({ ...options, incidents: Incidents.kinds })
            const names = v.split(",").map((name) => name.trim()).filter((name) => name !== "")
            const unknown = names.filter((name) => !(Incidents.kinds as ReadonlyArray<string>).includes(name))
            return unknown.length > 0
              ? Either.left(`--incidents: unknown ${unknown.join(", ")} (known: ${Incidents.kinds.join(", ")}, none)`)
              : Either.right({ ...options, incidents: Incidents.kinds.filter((kind) => names.includes(kind)) })
          })
        case "--engine":
          return Either.flatMap(value(), (v) =>
            v === "dynalite" || v === "dynamodb-local"
              ? Either.right({ ...options, engine: v })
              : Either.left(`--engine: "${v}" is not dynalite or dynamodb-local`))
        case "--endpoint":
          return Either.map(value(), (endpoint) => ({ ...options, endpoint }))
        case "--table":
          return Either.map(value(), (tableName) => ({ ...options, tableName }))
        case "--plain":
          return Either.right({ ...options, plain: true })
        case "--unsafe":
          return Either.right({ ...options, unsafe: true })
        case "--help":
        case "-h":
          return Either.right({ ...options, help: true })
        default:
          return Either.left(`unknown option ${arg}`)
      }
    })()
    if (Either.isLeft(result)) return result
    options = result.right
  }
  if (options.unsafe && options.incidents.length > 0) {
    return Either.left("--unsafe runs without the lock, so its incidents mean nothing: add --incidents none")
  }
  if (options.maxClockSkewMs >= options.leaseMs * 5) {
    return Either.left("--skew is more than 5 leases: takeovers would take most of the run")
  }
  return Either.right(options)
}
