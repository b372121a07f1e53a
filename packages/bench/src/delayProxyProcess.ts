/**
 * The delaying proxy's process (see `DelayProxy.ts`): argv[2] is the server's endpoint, argv[3] the delay each way
 * in ms. Sends `{ endpoint }` once it listens and exits when the bench process disconnects.
 */
import * as DelayProxy from "./DelayProxy.js"

const upstream = process.argv[2]
const delayMs = Number(process.argv[3])
if (upstream === undefined || !Number.isFinite(delayMs)) {
  throw new Error("usage: delayProxyProcess.ts <upstream> <delay ms>")
}

const proxy = await DelayProxy.serve(upstream, delayMs)
process.on("disconnect", () => void proxy.close().then(() => process.exit(0)))
process.send?.({ endpoint: proxy.endpoint })
