import * as LockStore from "@leasehold/lock/LockStore"
import { LockStoreConformance } from "@leasehold/testing"

// The reference store: a fresh, empty memory store per test.
LockStoreConformance.suite("memory", () => LockStore.layerMemory)
