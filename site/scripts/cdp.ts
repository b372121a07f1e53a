/**
 * A small Chrome DevTools Protocol client: headless Chromium started as a child process, and one page driven through
 * the protocol's JSON messages over its WebSocket. Enough for the site's browser test, with no browser download and
 * no driver library: the system's Chromium (Debian's `chromium` package) does the rendering.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import WebSocket from "ws"

type Listener = (params: Record<string, unknown>, sessionId: string | undefined) => void

/** The system's Chromium: `CHROMIUM` if set, else the first of the usual names on the `PATH`. */
export const findChromium = (): string | undefined => {
  if (process.env["CHROMIUM"]) return process.env["CHROMIUM"]
  for (const name of ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"]) {
    try {
      return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim()
    } catch {
      // not this one
    }
  }
  return undefined
}

/** A running headless Chromium and the protocol connection to it. */
export class Browser {
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  private readonly listeners = new Map<string, Set<Listener>>()

  private constructor(
    private readonly child: ChildProcess,
    private readonly socket: WebSocket,
    private readonly profile: string
  ) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number
        result?: unknown
        error?: { message: string }
        method?: string
        params?: Record<string, unknown>
        sessionId?: string
      }
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id)
        this.pending.delete(message.id)
        if (message.error) waiter?.reject(new Error(message.error.message))
        else waiter?.resolve(message.result)
      } else if (message.method !== undefined) {
        for (const listener of this.listeners.get(message.method) ?? []) {
          listener(message.params ?? {}, message.sessionId)
        }
      }
    })
  }

  /** Starts Chromium headless on a loopback debugging port of its choosing, with a profile of its own. */
  static async launch(executable: string): Promise<Browser> {
    const profile = Fs.mkdtempSync(Path.join(Os.tmpdir(), "leasehold-site-chromium-"))
    const child = spawn(executable, [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--no-default-browser-check",
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "--window-size=1280,900",
      "about:blank"
    ], { stdio: ["ignore", "ignore", "pipe"] })
    const endpoint = await new Promise<string>((resolve, reject) => {
      let output = ""
      const timer = setTimeout(() => reject(new Error(`Chromium did not start within 30 s:\n${output}`)), 30_000)
      child.stderr!.on("data", (chunk: Buffer) => {
        output += chunk.toString()
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      })
      child.on("exit", (code) => {
        clearTimeout(timer)
        reject(new Error(`Chromium exited (${code}) before it listened:\n${output}`))
      })
    })
    const socket = new WebSocket(endpoint, { perMessageDeflate: false })
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve())
      socket.once("error", reject)
    })
    return new Browser(child, socket, profile)
  }

  /** Sends one protocol command (to a page's session when given) and waits for its answer. */
  send<A = any>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<A> {
    const id = this.nextId++
    return new Promise<A>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`no answer to ${method} within 30 s`))
      }, 30_000)
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer)
          resolve(value as A)
        },
        reject: (error) => {
          clearTimeout(timer)
          reject(error)
        }
      })
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }))
    })
  }

  /** Calls `listener` on every event of that name; returns a function that stops it. */
  on(method: string, listener: Listener): () => void {
    const set = this.listeners.get(method) ?? new Set()
    set.add(listener)
    this.listeners.set(method, set)
    return () => set.delete(listener)
  }

  /** A new tab, attached: the session id its commands go to. */
  async newPage(): Promise<Page> {
    const { targetId } = await this.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" })
    const { sessionId } = await this.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true })
    await this.send("Page.enable", {}, sessionId)
    await this.send("Runtime.enable", {}, sessionId)
    return new Page(this, sessionId)
  }

  async close(): Promise<void> {
    try {
      await this.send("Browser.close")
    } catch {
      // it may be gone already
    }
    this.socket.close()
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve))
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000)
      await exited
      clearTimeout(timer)
    }
    Fs.rmSync(this.profile, { recursive: true, force: true, maxRetries: 5 })
  }
}

/** One tab. */
export class Page {
  readonly errors: Array<string> = []

  constructor(private readonly browser: Browser, private readonly sessionId: string) {
    browser.on("Runtime.exceptionThrown", (params, session) => {
      if (session !== sessionId) return
      const details = params["exceptionDetails"] as { text?: string; exception?: { description?: string } }
      this.errors.push(details.exception?.description ?? details.text ?? "an exception")
    })
  }

  /** Loads a URL and waits for its load event. */
  async goto(url: string): Promise<void> {
    const loaded = new Promise<void>((resolve) => {
      const stop = this.browser.on("Page.loadEventFired", (_params, session) => {
        if (session === this.sessionId) {
          stop()
          resolve()
        }
      })
    })
    await this.send("Page.navigate", { url })
    await loaded
  }

  send<A = any>(method: string, params: Record<string, unknown> = {}): Promise<A> {
    return this.browser.send<A>(method, params, this.sessionId)
  }

  /** Evaluates an expression in the page (awaiting a promise) and returns its value as JSON. */
  async evaluate<A>(expression: string): Promise<A> {
    const result = await this.send<{ result: { value?: A }; exceptionDetails?: { text: string } }>(
      "Runtime.evaluate",
      { expression, awaitPromise: true, returnByValue: true }
    )
    if (result.exceptionDetails) throw new Error(`in the page: ${result.exceptionDetails.text}: ${expression}`)
    return result.result.value as A
  }

  /** Waits until an expression is true in the page, polling. */
  async waitFor(expression: string, what: string, timeoutMillis = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMillis
    while (!(await this.evaluate<boolean>(`Boolean(${expression})`))) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMillis} ms waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** A PNG of the viewport, or of the whole page. */
  async screenshot(file: string, fullPage = false): Promise<void> {
    const { data } = await this.send<{ data: string }>("Page.captureScreenshot", {
      format: "png",
      captureBeyondViewport: fullPage
    })
    Fs.writeFileSync(file, Buffer.from(data, "base64"))
  }
}
