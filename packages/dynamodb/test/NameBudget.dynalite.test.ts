import { layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { nameBudgetBehaviour } from "./nameBudget.js"

layer(DynamoServer.layerDynalite)("Name budgets on dynalite", (it) => {
  nameBudgetBehaviour(it)
})
