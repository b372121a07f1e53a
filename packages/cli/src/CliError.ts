/**
 * The one error type commands fail with: a message for the operator and the exit code it maps to.
 *
 * @since 1.0.0
 */
import * as Data from "effect/Data"
import * as ExitCode from "./ExitCode.js"

/**
 * A failure the operator can act on. It is printed as one line (no stack trace) and ends the process with `exitCode`.
 *
 * @since 1.0.0
 * @category errors
 */
export class CliError extends Data.TaggedError("CliError")<{
  readonly exitCode: number
  /** What went wrong and what to do about it. */
  readonly message: string
}> {}

/**
 * @since 1.0.0
 * @category constructors
 */
export const usage = (message: string): CliError => new CliError({ exitCode: ExitCode.usage, message })

/**
 * @since 1.0.0
 * @category constructors
 */
export const store = (message: string): CliError => new CliError({ exitCode: ExitCode.storeProblem, message })

/**
 * @since 1.0.0
 * @category constructors
 */
export const notFound = (message: string): CliError => new CliError({ exitCode: ExitCode.notFound, message })

/**
 * @since 1.0.0
 * @category constructors
 */
export const cancelled = (message: string): CliError => new CliError({ exitCode: ExitCode.cancelled, message })

/**
 * @since 1.0.0
 * @category constructors
 */
export const unknown = (message: string): CliError => new CliError({ exitCode: ExitCode.unknown, message })

/** The flags of the store and table options whose names differ. */
const flagOf: Readonly<Record<string, string>> = {
  tableName: "table",
  partitionKey: "partition-key",
  sortKey: "sort-key"
}

/**
 * An invalid store or table option, as a usage error naming the flag it came from.
 *
 * @since 1.0.0
 * @category constructors
 */
export const invalidOption = (error: { readonly option: string; readonly message: string }): CliError =>
  usage(`--${flagOf[error.option] ?? error.option}: ${error.message}`)
