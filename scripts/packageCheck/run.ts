/**
 * How the package check and `npm run pack` run programs: each one to its end, with its output kept for the message
 * that says what failed.
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"

export interface Ran {
  readonly stdout: string
  readonly stderr: string
  readonly millis: number
}

/** A check that did not hold: the scripts print its message alone, without a stack. */
export class CheckFailed extends Error {}

const environment = {
  ...process.env,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  NO_UPDATE_NOTIFIER: "1"
}

const spawn = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  spawnSync(command, args, { cwd, encoding: "utf8", env: environment, maxBuffer: 64 * 1024 * 1024 })

const commandLine = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  `\`${[command, ...args].join(" ")}\` in ${cwd}`

export const run = (command: string, args: ReadonlyArray<string>, cwd: string, what: string): Ran => {
  const started = performance.now()
  const result = spawn(command, args, cwd)
  const millis = performance.now() - started
  if (result.error !== undefined || result.status !== 0) {
    throw new CheckFailed(
      `${what}: ${commandLine(command, args, cwd)} ` +
        `${result.error === undefined ? `exited with ${result.status}` : `failed: ${result.error.message}`}\n` +
        `${result.stdout ?? ""}${result.stderr ?? ""}`
    )
  }
  return { stdout: result.stdout, stderr: result.stderr, millis }
}

/** Runs a program that must fail, and gives what it printed. */
export const runFailing = (command: string, args: ReadonlyArray<string>, cwd: string, what: string): Ran => {
  const started = performance.now()
  const result = spawn(command, args, cwd)
  const millis = performance.now() - started
  if (result.error !== undefined) throw new CheckFailed(`${what}: ${commandLine(command, args, cwd)}: ${result.error}`)
  if (result.status === 0) {
    throw new CheckFailed(`${what}: ${commandLine(command, args, cwd)} succeeded\n${result.stdout}${result.stderr}`)
  }
  return { stdout: result.stdout, stderr: result.stderr, millis }
}

const npmCommand = process.platform === "win32" ? "npm.cmd" : "npm"

export const npm = (args: ReadonlyArray<string>, cwd: string, what: string): Ran =>
  run(npmCommand, [...args, "--no-audit", "--no-fund"], cwd, what)

export const npmFailing = (args: ReadonlyArray<string>, cwd: string, what: string): Ran =>
  runFailing(npmCommand, [...args, "--no-audit", "--no-fund"], cwd, what)

export const check = (condition: boolean, message: string): void => {
  if (!condition) throw new CheckFailed(message)
}

export const step = (message: string) => console.log(`package check: ${message}`)

export const writeJson = (file: string, value: unknown) => Fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n")
