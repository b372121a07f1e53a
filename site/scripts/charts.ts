/**
 * The charts of the performance page, drawn as plain SVG from BENCHMARKS.md's tables at build time: a takeover
 * timeline per mode, the wait-time distributions under contention, and the store calls per cycle, each beside the
 * peers the bench runs.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { measure, runOf, tableAfter } from "./benchmarkTables.js"
import { chartsRoot, repositoryRoot } from "./paths.js"

const width = 820
const labelWidth = 330
const plotLeft = labelWidth + 10
const plotRight = width - 70
const rowHeight = 30
const colors = {
  leasehold: "#2f6fd6",
  peer: "#8b929c",
  reads: "#e3a33b",
  bound: "#c7392f",
  grid: "#d8dce2",
  text: "#1f2328",
  muted: "#59636e"
}

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const text = (x: number, y: number, content: string, attributes = ""): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attributes}>${escape(content)}</text>`

/** Shorter row labels: the bench's stand-in backing becomes a footnote mark. */
const label = (cell: string): string => cell.replace(" (bench's DynamoDB backing)", "*")

/** A takeover mode's label without the explanation in parentheses that ends it (the footer says what they mean). */
const modeLabel = (cell: string): string => label(cell).replace(/\s\([^()]*\)$/, "")

const isLeasehold = (name: string) => name.startsWith("Leasehold")

const svg = (height: number, title: string, description: string, body: ReadonlyArray<string>): string =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"`,
    `  role="img" aria-labelledby="title desc" font-family="system-ui, -apple-system, Segoe UI, sans-serif"`,
    `  font-size="12" fill="${colors.text}">`,
    `<title id="title">${escape(title)}</title>`,
    `<desc id="desc">${escape(description)}</desc>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    text(12, 22, title, `font-size="15" font-weight="600"`),
    ...body,
    "</svg>",
    ""
  ].join("\n")

const niceStep = (span: number, ticks: number): number => {
  const raw = span / ticks
  const power = 10 ** Math.floor(Math.log10(raw))
  return [1, 2, 5, 10].map((f) => f * power).find((step) => step >= raw) ?? power * 10
}

/** Vertical grid lines with their values along a linear axis from 0 to `max`. */
const linearAxis = (max: number, top: number, bottom: number, unit: string) => {
  const step = niceStep(max, 6)
  // Room on the right of the largest value for its label.
  const end = Math.ceil((max * 1.1) / step) * step
  const x = (value: number) => plotLeft + (value / end) * (plotRight - plotLeft)
  const lines: Array<string> = []
  for (let value = 0; value <= end + step / 2; value += step) {
    lines.push(`<line x1="${x(value)}" x2="${x(value)}" y1="${top}" y2="${bottom}" stroke="${colors.grid}"/>`)
    lines.push(
      text(x(value), bottom + 14, `${Number(value.toFixed(2))}${unit}`, `text-anchor="middle" fill="${colors.muted}"`)
    )
  }
  return { x, lines }
}

const footer = (y: number, lines: ReadonlyArray<string>): Array<string> =>
  lines.map((line, i) => text(12, y + i * 15, line, `fill="${colors.muted}" font-size="11"`))

/** Table 3: for each takeover mode, the time from the holder's SIGKILL to the takeover, against the mode's bound. */
const takeoverChart = (markdown: string, run: string): string => {
  const rows = tableAfter(markdown, "3. Takeover", [
    "contender, takeover mode",
    "lease ms",
    "bound: at most ms",
    "kill → takeover ms"
  ])
  const top = 50
  const bottom = top + rows.length * rowHeight
  const axis = linearAxis(Math.max(...rows.map((row) => Number(row["bound: at most ms"]))), top, bottom, " ms")
  const body = [...axis.lines]
  rows.forEach((row, i) => {
    const name = row["contender, takeover mode"]!
    const took = measure(row["kill → takeover ms"]!)
    const bound = Number(row["bound: at most ms"])
    const lease = Number(row["lease ms"])
    const y = top + i * rowHeight + rowHeight / 2
    const color = isLeasehold(name) ? colors.leasehold : colors.peer
    body.push(text(labelWidth, y + 4, modeLabel(name), `text-anchor="end"`))
    body.push(
      `<line x1="${axis.x(0)}" x2="${axis.x(lease)}" y1="${y}" y2="${y}" stroke="${colors.grid}" stroke-width="10"/>`,
      `<rect x="${axis.x(0)}" y="${y - 4}" width="${
        (axis.x(took.median) - axis.x(0)).toFixed(1)
      }" height="8" fill="${color}"/>`,
      `<line x1="${axis.x(took.min)}" x2="${axis.x(took.max)}" y1="${y}" y2="${y}" stroke="${colors.text}"/>`,
      `<line x1="${axis.x(took.min)}" x2="${axis.x(took.min)}" y1="${y - 5}" y2="${y + 5}" stroke="${colors.text}"/>`,
      `<line x1="${axis.x(took.max)}" x2="${axis.x(took.max)}" y1="${y - 5}" y2="${y + 5}" stroke="${colors.text}"/>`,
      `<line x1="${axis.x(bound)}" x2="${axis.x(bound)}" y1="${y - 10}" y2="${
        y + 10
      }" stroke="${colors.bound}" stroke-width="2"/>`,
      text(axis.x(bound) + 5, y + 4, `${took.median} / ${bound}`, `fill="${colors.muted}" font-size="11"`)
    )
  })
  const description = rows.map((row) =>
    `${modeLabel(row["contender, takeover mode"]!)}: ${row["kill → takeover ms"]} ms, bound ${
      row["bound: at most ms"]
    } ms`
  ).join("; ")
  return svg(bottom + 110, "Takeover after SIGKILL: kill → takeover, per mode (ms)", description, [
    ...body,
    ...footer(bottom + 38, [
      "Bar: median of the trials, whisker: fastest to slowest; grey band: the lease; red mark: the mode's bound;",
      "label: median / bound. The holder is killed between two heartbeats at 0 ms.",
      "* effect-distributed-lock on the bench's minimal DynamoDB backing.",
      `Source: BENCHMARKS.md, table 3 (${run}).`
    ])
  ])
}

/** Table 2: wait from asking to entering the section, 4 processes on one key, p50 to the longest, on a log scale. */
const waitChart = (markdown: string, run: string): string => {
  const rows = tableAfter(markdown, "2. Contention", ["setup", "wait p50 ms", "wait p99 ms", "wait max ms"])
  const top = 50
  const bottom = top + rows.length * rowHeight
  const low = 1
  const high = 10_000
  const x = (value: number) => plotLeft + (Math.log10(Math.max(value, low)) / Math.log10(high)) * (plotRight - plotLeft)
  const body: Array<string> = []
  for (const value of [1, 10, 100, 1000, 10_000]) {
    body.push(`<line x1="${x(value)}" x2="${x(value)}" y1="${top}" y2="${bottom}" stroke="${colors.grid}"/>`)
    body.push(
      text(x(value), bottom + 14, `${value.toLocaleString("en-US")} ms`, `text-anchor="middle" fill="${colors.muted}"`)
    )
  }
  rows.forEach((row, i) => {
    const name = row["setup"]!
    const p50 = Number(row["wait p50 ms"])
    const p99 = Number(row["wait p99 ms"])
    const max = Number(row["wait max ms"])
    const y = top + i * rowHeight + rowHeight / 2
    const color = isLeasehold(name) ? colors.leasehold : colors.peer
    body.push(
      text(labelWidth, y + 4, label(name), `text-anchor="end"`),
      `<line x1="${x(p50)}" x2="${x(p99)}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="8"/>`,
      `<line x1="${x(p99)}" x2="${x(max)}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="2"/>`,
      `<circle cx="${x(p50)}" cy="${y}" r="5" fill="#ffffff" stroke="${color}" stroke-width="2"/>`,
      `<line x1="${x(max)}" x2="${x(max)}" y1="${y - 6}" y2="${y + 6}" stroke="${color}" stroke-width="2"/>`,
      text(x(max) + 6, y + 4, `p99 ${p99}`, `fill="${colors.muted}" font-size="11"`)
    )
  })
  const description = rows.map((row) =>
    `${label(row["setup"]!)}: p50 ${row["wait p50 ms"]}, p99 ${row["wait p99 ms"]}, max ${row["wait max ms"]} ms`
  ).join("; ")
  return svg(bottom + 110, "Wait to enter the section under contention (ms, log scale)", description, [
    ...body,
    ...footer(bottom + 38, [
      "Circle: median wait; thick bar: median to p99; thin line: p99 to the longest wait. Each process loops: acquire,",
      "hold 5 ms, release; lease 300 ms. Leasehold: whoever asks first wins until a waiter reserves, and the reserver",
      "is next a turn later; the peers let whoever asks first win.",
      "* effect-distributed-lock on the bench's minimal DynamoDB backing.",
      `Source: BENCHMARKS.md, table 2 (${run}).`
    ])
  ])
}

/** Tables 1 and 2: store calls (writes and reads, counted at the server) per uncontended cycle and per acquisition. */
const callsChart = (markdown: string, run: string): string => {
  const uncontended = tableAfter(markdown, "1. Uncontended", ["contender", "writes/cycle", "reads/cycle"])
    .map((row) => ({ name: row["contender"]!, writes: Number(row["writes/cycle"]), reads: Number(row["reads/cycle"]) }))
  const contended = tableAfter(markdown, "2. Contention", ["setup", "writes", "reads"])
    .map((row) => ({ name: row["setup"]!, writes: Number(row["writes"]), reads: Number(row["reads"]) }))
  const max = Math.max(...[...uncontended, ...contended].map((row) => row.writes + row.reads))
  const body: Array<string> = []
  let y = 50
  const panel = (heading: string, rows: ReadonlyArray<{ name: string; writes: number; reads: number }>) => {
    body.push(text(12, y + 4, heading, `font-weight="600"`))
    y += 14
    const top = y
    const bottom = top + rows.length * rowHeight
    const axis = linearAxis(max, top, bottom, "")
    body.push(...axis.lines)
    rows.forEach((row, i) => {
      const cy = top + i * rowHeight + rowHeight / 2
      const color = isLeasehold(row.name) ? colors.leasehold : colors.peer
      body.push(
        text(labelWidth, cy + 4, label(row.name), `text-anchor="end"`),
        `<rect x="${axis.x(0)}" y="${cy - 7}" width="${
          (axis.x(row.writes) - axis.x(0)).toFixed(1)
        }" height="14" fill="${color}"/>`,
        `<rect x="${axis.x(row.writes)}" y="${cy - 7}" width="${
          (axis.x(row.writes + row.reads) - axis.x(row.writes)).toFixed(1)
        }" height="14" fill="${colors.reads}"/>`,
        text(
          axis.x(row.writes + row.reads) + 6,
          cy + 4,
          `${row.writes} + ${row.reads}`,
          `fill="${colors.muted}" font-size="11"`
        )
      )
    })
    y = bottom + 40
  }
  panel("Uncontended acquire + release, per cycle (table 1)", uncontended)
  panel("Contention on one key, per acquisition (table 2)", contended)
  const description = [...uncontended, ...contended].map((row) =>
    `${label(row.name)}: ${row.writes} writes, ${row.reads} reads`
  ).join("; ")
  return svg(y + 60, "Store calls, counted at the server: writes + reads", description, [
    ...body,
    `<rect x="12" y="${y - 22}" width="12" height="12" fill="${colors.leasehold}"/>`,
    text(30, y - 12, "writes (Leasehold)", ""),
    `<rect x="150" y="${y - 22}" width="12" height="12" fill="${colors.peer}"/>`,
    text(168, y - 12, "writes (peers)", ""),
    `<rect x="270" y="${y - 22}" width="12" height="12" fill="${colors.reads}"/>`,
    text(288, y - 12, "reads (a waiter's look before it writes; dynalite's read after a refused write)", ""),
    ...footer(y + 8, [
      "* effect-distributed-lock on the bench's minimal DynamoDB backing.",
      `Source: BENCHMARKS.md, tables 1 and 2 (${run}).`
    ])
  ])
}

/** The charts by file name, as the performance page embeds them. */
export const chartFiles = ["takeover.svg", "contention-waits.svg", "store-calls.svg"] as const

/** Draws every chart from the repository's BENCHMARKS.md into `site/src/public/charts`. */
export const writeCharts = (): void => {
  const markdown = Fs.readFileSync(Path.join(repositoryRoot, "BENCHMARKS.md"), "utf8")
  const run = runOf(markdown)
  Fs.rmSync(chartsRoot, { recursive: true, force: true })
  Fs.mkdirSync(chartsRoot, { recursive: true })
  const charts: Record<(typeof chartFiles)[number], string> = {
    "takeover.svg": takeoverChart(markdown, run),
    "contention-waits.svg": waitChart(markdown, run),
    "store-calls.svg": callsChart(markdown, run)
  }
  for (const [file, content] of Object.entries(charts)) Fs.writeFileSync(Path.join(chartsRoot, file), content)
}
