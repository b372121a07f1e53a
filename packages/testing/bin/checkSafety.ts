/**
 * `npm run check:safety -- --schedules 10000`: runs seeded schedules through the safety checker and prints a summary.
 * `npm run check:safety -- --seed N --replay`: replays one seed and prints its history.
 * Other flags: `--from N` (first seed, default 1), `--mode M` (one class: safe, skew, longPause, wrapped, reentry,
 * steal, clockStep, badOptions, handOff, semaphore, late, contended, session, multi, readWrite), `--no-shrink`.
 */
import { main } from "../src/internal/safety/checkSafetyMain.js"

const code = main(process.argv.slice(2), (line) => process.stdout.write(line + "\n"))
// Every schedule has run and been checked by now: exit once the output is out, whatever a simulated process left
// behind in its runtime.
process.stdout.write("", () => process.exit(code))
