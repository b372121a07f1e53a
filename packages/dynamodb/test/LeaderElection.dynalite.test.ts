import { layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { electionBehaviour } from "./leaderElection.js"

layer(DynamoServer.layerDynalite, { excludeTestServices: true })("LeaderElection on dynalite", (it) => {
  electionBehaviour(it)
})
