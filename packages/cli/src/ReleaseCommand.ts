/**
 * `leasehold release NAME --force`: take a lock away from its holder.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Prompt from "@effect/cli/Prompt"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Connection from "./Connection.js"
import * as Help from "./Help.js"
import * as InspectCommand from "./InspectCommand.js"
import * as Run from "./internal/run.js"
import * as Render from "./Render.js"

const who = (lock: Render.LockView) =>
  `${lock.holder ?? "?"} (owner ${lock.owner ?? "?"}, fence ${lock.fence}, lease ${Render.remaining(lock)})`

/** Whether someone can answer a prompt: a prompt on a pipe would hang a script or read garbage. */
const interactive = Effect.sync(() => process.stdin.isTTY === true && process.stdout.isTTY === true)

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "release",
  {
    connection: Connection.options,
    name: InspectCommand.nameArg,
    force: Options.boolean("force").pipe(
      Options.withDescription("Required: release the lock whoever holds it (holders release their own locks).")
    ),
    yes: Options.boolean("yes").pipe(
      Options.withAlias("y"),
      Options.withDescription("Do not ask for confirmation (required when stdin is not a terminal).")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("Print the removed holder as JSON."))
  },
  ({ connection, force, json, name, yes }) =>
    Effect.gen(function*() {
      if (!force) {
        return yield* CliError.usage(
          `release takes "${name}" away from whoever holds it; pass --force to say you mean that ` +
            `(a program releases its own locks by ending its scope)`
        )
      }
      return yield* Run.withStore(connection, (store, resolved) =>
        Effect.gen(function*() {
          const before = yield* store.inspect(name)
          if (Option.isNone(before)) return yield* InspectCommand.notFound(name, resolved)
          const seen = Render.view(before.value, yield* Clock.currentTimeMillis)
          if (!seen.held) {
            return yield* CliError.notFound(`lock "${name}" is not held (fence ${seen.fence}): nothing to release`)
          }
          if (!yes) {
            if (!(yield* interactive)) {
              return yield* CliError.usage(
                `not releasing "${name}" (held by ${who(seen)}) without confirmation, and stdin is not a terminal: ` +
                  `pass --yes`
              )
            }
            const confirmed = yield* Prompt.confirm({
              message: `Force-release "${name}", held by ${
                who(seen)
              }? It learns at its next renew that it lost the lock.`,
              initial: false
            }).pipe(Effect.catchTag("QuitException", () => Effect.succeed(false)))
            if (!confirmed) return yield* CliError.cancelled(`cancelled: "${name}" was not released`)
          }
          const removed = yield* store.forceRelease(name)
          if (Option.isNone(removed)) {
            return yield* CliError.notFound(`lock "${name}" was released by its holder in the meantime: nothing to do`)
          }
          const lock = Render.view(removed.value, yield* Clock.currentTimeMillis)
          yield* Console.log(
            json
              ? JSON.stringify({ released: true, removed: lock }, null, 2)
              : `released "${name}": removed holder ${who(lock)}`
          )
          if (lock.owner !== seen.owner) {
            yield* Console.error(
              `note: the holder changed since the confirmation (was ${who(seen)}); the one above was removed`
            )
          }
        }))
    })
).pipe(Command.withDescription(Help.describe(
  "Force-release a lock: clear its holder whoever it is, keeping the fence so the next holder gets a higher one. " +
    "The holder finds out at its next renew (LockLost \"freed\") and its critical section is interrupted; until " +
    "then it may still act, so downstream systems should check fencing tokens. Asks for confirmation unless --yes. " +
    "Prints the holder it removed. Exits 3 if the lock is not held.",
  [
    ["leasehold release orders/42 --force", "asks, then releases"],
    ["leasehold release orders/42 --force --yes --json", "no prompt, for a script"]
  ]
)))
