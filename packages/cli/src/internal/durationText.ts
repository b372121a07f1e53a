/**
 * Durations as an operator types them on the command line: "500ms", "2s", "1.5s", "1m", "2 seconds"; a bare number
 * is seconds.
 *
 * @internal
 */

/**
 * The milliseconds `input` stands for, or `undefined` if it is no duration of that form.
 *
 * @internal
 */
export const millis = (input: string): number | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|millis|s|sec|seconds?|m|min|minutes?)?\s*$/i.exec(input)
  if (match === null) return undefined
  const value = Number(match[1])
  const unit = (match[2] ?? "s").toLowerCase()
  const ms = unit.startsWith("ms") || unit === "millis" ? value : unit.startsWith("m") ? value * 60_000 : value * 1000
  return Number.isFinite(ms) ? ms : undefined
}
