/**
 * Percentiles, medians and the markdown tables the bench prints.
 */

export const percentile = (sorted: ReadonlyArray<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]!
}

export const sorted = (values: ReadonlyArray<number>): Array<number> => [...values].sort((a, b) => a - b)

export const median = (values: ReadonlyArray<number>): number => percentile(sorted(values), 50)

export const fixed = (n: number, digits: number): string => Number.isFinite(n) ? n.toFixed(digits) : "n/a"

/** "median (min–max)" over rounds. */
export const spread = (values: ReadonlyArray<number>, digits: number): string => {
  const s = sorted(values)
  if (s.length === 1) return fixed(s[0]!, digits)
  return `${fixed(percentile(s, 50), digits)} (${fixed(s[0]!, digits)}–${fixed(s[s.length - 1]!, digits)})`
}

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const line = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`
  return [line(header), line(header.map((_, i) => (i === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n")
}
