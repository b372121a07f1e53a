import { layer } from "@effect/vitest"
import { DynamoServer } from "@leasehold/testing"
import { electionBehaviour } from "./leaderElection.js"

layer(DynamoServer.layerDynalite, { excludeTestServices: true })("LeaderElection on dynalite", (it) => {
  electionBehaviour(it)
})
