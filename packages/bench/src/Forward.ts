/**
 * The part the bench's recording and delaying proxies share: read a request whole, send it on to the server, and
 * hand its answer on whole, so that a proxy can note or delay either at one point in time.
 */
import * as Http from "node:http"

/** Calls `then` with the request's whole body once it has arrived. */
export const readBody = (req: Http.IncomingMessage, then: (body: Buffer) => void): void => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => then(Buffer.concat(chunks)))
}

/** An upstream answer, read whole. */
export interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Buffer
}

/**
 * Sends `req` (with its `body`, already read) to `target` and calls `then` with the whole answer; a failed upstream
 * closes the client's connection.
 */
export const forward = (
  target: URL,
  agent: Http.Agent,
  req: Http.IncomingMessage,
  res: Http.ServerResponse,
  body: Buffer,
  then: (answer: Answer) => void
): void => {
  const forwarded = Http.request({
    host: target.hostname,
    port: Number(target.port),
    method: req.method,
    path: req.url,
    headers: req.headers,
    agent
  }, (response) => {
    const status = response.statusCode ?? 502
    readBody(response, (answer) => then({ status, headers: response.headers, body: answer }))
  })
  forwarded.on("error", () => res.destroy())
  forwarded.end(body)
}

/** Writes `answer` to the client. */
export const reply = (res: Http.ServerResponse, answer: Answer): void => {
  res.writeHead(answer.status, answer.headers)
  res.end(answer.body)
}
