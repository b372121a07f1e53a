import { layer } from "@effect/vitest"
import { DynamoServer } from "@leasehold/testing"
import { nameBudgetBehaviour } from "./nameBudget.js"

layer(DynamoServer.layerDynalite)("Name budgets on dynalite", (it) => {
  nameBudgetBehaviour(it)
})
