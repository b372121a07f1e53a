/**
 * The `check:safety` command on this line's simulation: the core parses the arguments and writes the report; the
 * schedules run here. Kept apart from `bin/` so that it is type-checked.
 *
 * @internal
 */
import * as CheckSafetyCommand from "@leasehold/core/safety/CheckSafetyCommand"
import * as Run from "../simulation/run.js"

/** Runs the command; returns the exit code. @internal */
export const main = (argv: ReadonlyArray<string>, print: (line: string) => void): number =>
  CheckSafetyCommand.main(argv, print, (schedule) => Run.run(schedule))
