/**
 * Reads the measured tables out of BENCHMARKS.md (written by `npm run bench`), so that the site's charts are drawn
 * from the numbers of the last run and never by hand. A table whose heading or columns changed fails the build with
 * a message that says which, rather than drawing something else.
 */

/** A table's rows, each cell by its column's header. */
export type Table = ReadonlyArray<Readonly<Record<string, string>>>

const cells = (line: string): Array<string> =>
  line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((cell) => cell.trim())

/**
 * The `index`-th Markdown table (from 0) after the first heading that starts with `heading`, checked to have the
 * named columns.
 */
export const tableAfter = (
  markdown: string,
  heading: string,
  columns: ReadonlyArray<string>,
  index = 0
): Table => {
  const lines = markdown.split("\n")
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, "").startsWith(heading))
  if (start < 0) throw new Error(`BENCHMARKS.md has no heading that starts with "${heading}"`)
  const tables: Array<Array<string>> = []
  let current: Array<string> | undefined
  for (const line of lines.slice(start + 1)) {
    if (/^#+ /.test(line) && tables.length > index) break
    if (line.startsWith("|")) {
      if (current === undefined) tables.push(current = [])
      current.push(line)
    } else current = undefined
  }
  const table = tables[index]
  if (table === undefined || table.length < 2) {
    throw new Error(`BENCHMARKS.md: no table ${index + 1} under "${heading}"`)
  }
  // Where two columns share a name, a header without a group of its own takes the group of the one before it
  // (`first on a new name: writes | reads` names its second column `first on a new name: reads`).
  const plain = cells(table[0]!)
  const headers = new Set(plain).size === plain.length ? plain : plain.reduce<Array<string>>((named, header) => {
    const group = /^(.*): /.exec(named.at(-1) ?? "")?.[1]
    return [...named, group !== undefined && !header.includes(": ") ? `${group}: ${header}` : header]
  }, [])
  const missing = columns.filter((column) => !headers.includes(column))
  if (missing.length > 0) {
    throw new Error(
      `BENCHMARKS.md: the table under "${heading}" has no column ${missing.map((m) => `"${m}"`).join(", ")}`
    )
  }
  return table.slice(2).map((line) => {
    const row = cells(line)
    return Object.fromEntries(headers.map((header, i) => [header, row[i] ?? ""]))
  })
}

/** A measured value: the median of the rounds and, where the table gives them, the least and the most. */
export interface Measure {
  readonly median: number
  readonly min: number
  readonly max: number
}

const number = (text: string): number => {
  const value = Number(text.replace(/,/g, ""))
  if (!Number.isFinite(value)) throw new Error(`BENCHMARKS.md: "${text}" is not a number`)
  return value
}

/** `1376 (1360–1459)` or `97.2`. */
export const measure = (cell: string): Measure => {
  const match = /^([\d.,]+)(?:\s*\(([\d.,]+)[–-]([\d.,]+)\))?$/.exec(cell.trim())
  if (match === null) throw new Error(`BENCHMARKS.md: "${cell}" is not a measurement`)
  const median = number(match[1]!)
  return {
    median,
    min: match[2] === undefined ? median : number(match[2]),
    max: match[3] === undefined ? median : number(match[3])
  }
}

/** The run's machine and date, as the file's header gives them. */
export const runOf = (markdown: string): string => {
  const machine = /^- Machine: (.*)$/m.exec(markdown)?.[1] ?? "machine not stated"
  const date = /(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}/.exec(markdown)?.[1] ?? "date not stated"
  return `${machine.replace(/, Linux.*$/, "")}; run of ${date}`
}
