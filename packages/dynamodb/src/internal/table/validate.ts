/**
 * The options' checks of the core's `StoreOptions`, as this line reports them: a `LockConfigError` that names the
 * option, before any request, with durations read as `Duration` inputs and values quoted as `LockDuration` does.
 *
 * @internal
 */
import type * as KeySchema from "@leasehold/core/dynamodb/KeySchema"
import * as StoreOptions from "@leasehold/core/dynamodb/StoreOptions"
import * as OptionsRecord from "@leasehold/core/options/OptionsRecord"
import * as LockDuration from "@leasehold/lock/LockDuration"
import { LockConfigError } from "@leasehold/lock/LockError"
import * as EffectLine from "../effectLine.js"

/** @internal */
export const describe: StoreOptions.Describe = LockDuration.describe

/** @internal */
export const config = (option: string, message: string): LockConfigError => new LockConfigError({ option, message })

/** @internal */
export const fromProblem = (problem: StoreOptions.ConfigProblem): LockConfigError =>
  config(problem.option, problem.message)

/**
 * The options argument of an entry point checked to be a record (the core's `OptionsRecord`), before any of its fields
 * is read: `null` or another value is a `LockConfigError` naming "options", neither a defect nor the defaults.
 *
 * @internal
 */
export const optionsRecord = (
  input: unknown,
  presence: OptionsRecord.Presence = "required"
): LockConfigError | undefined => {
  const problem = OptionsRecord.problem(input, presence)
  return problem === undefined ? undefined : config(OptionsRecord.option, problem)
}

/**
 * A `Duration` input as the core's checks take it: its exact milliseconds, or none when it is not a duration.
 *
 * @internal
 */
export const durationOption = (input: unknown): StoreOptions.DurationOption => ({
  millis: EffectLine.getOrUndefined(LockDuration.toMillis(input)),
  input
})

/** @internal */
export const tableName = (name: unknown): LockConfigError | undefined => {
  const problem = StoreOptions.tableName(name, describe)
  return problem === undefined ? undefined : fromProblem(problem)
}

/** @internal */
export const duration = (option: string, input: unknown, allowZero: boolean): number | LockConfigError => {
  const millis = StoreOptions.duration(option, durationOption(input), allowZero, describe)
  return typeof millis === "number" ? millis : fromProblem(millis)
}

/** @internal */
export const prefix = (prefix: unknown, sortKey: string | undefined): string | LockConfigError => {
  const checked = StoreOptions.prefix(prefix, sortKey, describe)
  return typeof checked === "string" ? checked : fromProblem(checked)
}

/**
 * The key schema a table helper's options ask for, or the `LockConfigError` that says which option is wrong.
 *
 * @internal
 */
export const tableKeys = (
  options: { readonly tableName: string; readonly partitionKey?: string | undefined; readonly sortKey?: unknown }
): KeySchema.Expected | LockConfigError => {
  const checked = StoreOptions.tableKeys({
    tableName: options.tableName,
    partitionKey: options.partitionKey,
    sortKey: options.sortKey
  }, describe)
  return StoreOptions.isProblem(checked) ? fromProblem(checked) : checked
}
