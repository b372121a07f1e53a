/**
 * The `leasehold` executable: `main` on Node, exiting with its code.
 *
 * @since 1.0.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Cli from "./Cli.js"

// The SDK warns on every start under Node < 22 about its future releases: noise an operator can not act on per run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true"

NodeRuntime.runMain(Cli.main(process.argv).pipe(Effect.provide(NodeContext.layer)), {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  // Ctrl-C (an interruption) ends `watch` normally: exit 0, as the default teardown does.
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : 0)
})
