import * as LockStore from "@leasehold/lock/LockStore"
import * as LockStoreConformance from "@leasehold/testing/LockStoreConformance"

// The reference store: a fresh, empty memory store per test.
LockStoreConformance.suite("memory", () => LockStore.layerMemory)
