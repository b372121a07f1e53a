/**
 * Whether output may carry colour, and a Console and Terminal that drop it when not.
 *
 * @effect/cli renders help, usage errors and prompts with ANSI styles whatever the output is, and writes them through
 * Effect's `Console` (help to stdout, errors to stderr) and `Terminal` (prompts). Styles on a pipe or in a file are
 * noise (`leasehold --help | less`, a CI log), so the CLI swaps in services that strip them where colour is off,
 * rather than re-rendering what the library renders.
 *
 * @internal
 */
import * as Terminal from "@effect/platform/Terminal"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/**
 * Colour on a stream: `FORCE_COLOR` decides when set (on unless "0" or "false", so that it can also turn colour off);
 * otherwise a non-empty `NO_COLOR` turns it off (an empty one counts as unset, by its convention); otherwise only a
 * terminal gets colour.
 *
 * @internal
 */
export const enabled = (env: Readonly<Record<string, string | undefined>>, isTTY: boolean | undefined): boolean => {
  const force = env["FORCE_COLOR"]
  if (force !== undefined) return force !== "0" && force !== "false"
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false
  return isTTY === true
}

/**
 * ANSI "select graphic rendition" sequences: colours and bold, nothing else. Cursor movement and screen clearing
 * (`watch`'s redraw, a prompt's) are kept: they are only written to terminals, and without them the output breaks.
 */
const styles = /\x1b\[[0-9;]*m/g

/**
 * `text` without colours and bold.
 *
 * @internal
 */
export const strip = (text: string): string => text.replace(styles, "")

const stripArgs = (args: ReadonlyArray<unknown>) => args.map((arg) => typeof arg === "string" ? strip(arg) : arg)

/**
 * `console` with the styles stripped from what goes to stdout when `stdout` is false, and from what goes to stderr
 * when `stderr` is false (Node's console writes `log`, `info`, `debug` and `table` to stdout, `error`, `warn` and
 * `trace` to stderr).
 *
 * @internal
 */
export const console = (
  base: Console.Console,
  colour: { readonly stdout: boolean; readonly stderr: boolean }
): Console.Console => {
  if (colour.stdout && colour.stderr) return base
  const out = colour.stdout ? (args: ReadonlyArray<unknown>) => args : stripArgs
  const err = colour.stderr ? (args: ReadonlyArray<unknown>) => args : stripArgs
  return {
    ...base,
    debug: (...args) => base.debug(...out(args)),
    info: (...args) => base.info(...out(args)),
    log: (...args) => base.log(...out(args)),
    error: (...args) => base.error(...err(args)),
    trace: (...args) => base.trace(...err(args)),
    warn: (...args) => base.warn(...err(args))
  }
}

/**
 * Runs `self` with colour on stdout and stderr as the environment and the streams say; the terminal (prompts, which
 * only appear when stdout is a terminal) follows stdout.
 *
 * @internal
 */
export const apply = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Terminal.Terminal> =>
  Effect.suspend(() => {
    const colour = {
      stdout: enabled(process.env, process.stdout.isTTY),
      stderr: enabled(process.env, process.stderr.isTTY)
    }
    if (colour.stdout && colour.stderr) return self
    return Console.consoleWith((base) => {
      const plain = Effect.withConsole(self, console(base, colour))
      return colour.stdout
        ? plain
        : Effect.updateService(plain, Terminal.Terminal, (terminal) => ({
          ...terminal,
          display: (text: string) => terminal.display(strip(text))
        }))
    })
  })
