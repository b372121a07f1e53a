import { describe, expect, it } from "vitest"
import type { ItemMap } from "../../src/dynamodb/AttributeValue.js"
import * as Keys from "../../src/dynamodb/Keys.js"
import * as LockItem from "../../src/dynamodb/LockItem.js"
import * as SemaphoreItem from "../../src/dynamodb/SemaphoreItem.js"
import * as SemaphoreKeys from "../../src/dynamodb/SemaphoreKeys.js"

const layout = Keys.make({ partitionKey: "pk", sortKey: "sk", prefix: "f" })
const semaphoreKeys = SemaphoreKeys.make(layout)

const held: ItemMap = {
  pk: { S: "f" },
  sk: { S: "job" },
  owner: { S: "o1" },
  holder: { S: "worker" },
  leaseUntil: { N: "2000" },
  leaseMs: { N: "1000" },
  fence: { N: "7" },
  acquiredAt: { N: "1000" }
}

describe("LockItem.decode", () => {
  it("reads a held item, defaulting what older items lack", () => {
    expect(LockItem.decode(layout, held)).toEqual({
      _tag: "Ok",
      value: {
        name: "job",
        owner: "o1",
        holder: "worker",
        leaseUntil: 2000,
        leaseMs: 1000,
        fence: 7,
        version: 0,
        sequence: 0,
        acquiredAt: 1000,
        data: undefined,
        reservedBy: undefined,
        reservedUntil: 0,
        reservedSince: 0,
        reservedFrom: 0
      }
    })
  })

  it("reads the lease session a lock is held under, and refuses one that is not a string", () => {
    expect(LockItem.decode(layout, { ...held, leaseSession: { S: "s1" } })).toMatchObject({
      _tag: "Ok",
      value: { session: "s1" }
    })
    expect(LockItem.decode(layout, { ...held, leaseSession: { N: "1" } })).toMatchObject({
      _tag: "Malformed",
      attribute: "leaseSession"
    })
  })

  it("names the first malformed attribute and the key", () => {
    const decoded = LockItem.decode(layout, { ...held, fence: { S: "7" }, leaseMs: { N: "1.5" } })
    expect(decoded).toEqual({
      _tag: "Malformed",
      key: JSON.stringify({ pk: "f", sk: "job" }),
      attribute: "leaseMs",
      problem: "should be a safe integer, found 1.5"
    })
    if (decoded._tag === "Malformed") {
      expect(LockItem.describeMalformed(decoded)).toBe("attribute \"leaseMs\" should be a safe integer, found 1.5")
    }
    const { holder: _, ...withoutHolder } = held
    expect(LockItem.decode(layout, withoutHolder)).toMatchObject({ attribute: "holder", problem: "is missing" })
    expect(LockItem.decode(layout, { ...held, pk: { S: "other" } })).toMatchObject({
      attribute: "sk",
      problem: "is not a lock name of this store (wrong prefix or type)"
    })
  })

  it("refuses a semaphore's item, naming the clash of sort-key mode", () => {
    expect(LockItem.decode(layout, { ...held, sk: { S: "#x" }, limit: { N: "3" } })).toMatchObject({
      attribute: "limit",
      problem: expect.stringContaining("the semaphore \"x\" has the key of the lock \"#x\"")
    })
  })

  it("words the error of a malformed item", () => {
    expect(LockItem.malformedMessage("locks", "lock", "{k}", "it is odd")).toBe(
      "table \"locks\" holds a malformed lock item {k}: it is odd; it was not written by Leasehold or was edited by " +
        "hand: fix or delete that item"
    )
  })
})

const entry = (permits: number): ItemMap[string] => ({
  M: {
    holder: { S: "h" },
    permits: { N: String(permits) },
    leaseUntil: { N: "500" },
    leaseMs: { N: "100" },
    version: { N: "1" },
    acquiredAt: { N: "400" }
  }
})

const semaphore: ItemMap = {
  pk: { S: "f" },
  sk: { S: "#pool" },
  limit: { N: "5" },
  used: { N: "3" },
  fence: { N: "9" },
  holders: { M: { b: entry(2), a: entry(1) } },
  fences: { M: { a: { N: "8" }, b: { N: "9" } } }
}

describe("SemaphoreItem.decode", () => {
  it("reads the holders in fence order", () => {
    const decoded = SemaphoreItem.decode(semaphoreKeys, layout, semaphore)
    expect(decoded._tag).toBe("Ok")
    if (decoded._tag !== "Ok") return
    expect(decoded.value).toMatchObject({ name: "pool", limit: 5, used: 3, fence: 9 })
    expect(decoded.value.holders.map((holder) => [holder.owner, holder.fence, holder.sequence])).toEqual([
      ["a", 8, 0],
      ["b", 9, 0]
    ])
  })

  it("refuses counts that do not add up, stray fences, and a lock's item", () => {
    expect(SemaphoreItem.decode(semaphoreKeys, layout, { ...semaphore, used: { N: "4" } })).toMatchObject({
      attribute: "used",
      problem: "is 4, but the holders hold 3 permits"
    })
    expect(
      SemaphoreItem.decode(semaphoreKeys, layout, {
        ...semaphore,
        fences: { M: { a: { N: "8" }, b: { N: "9" }, c: { N: "1" } } }
      })
    ).toMatchObject({ attribute: "fences.c", problem: "names no holder" })
    const { limit: _, ...lock } = semaphore
    expect(SemaphoreItem.decode(semaphoreKeys, layout, { ...lock, leaseUntil: { N: "1" } })).toMatchObject({
      attribute: "limit",
      problem: expect.stringContaining("the item is the lock \"#pool\"")
    })
  })
  it("reads a reservation and the read/write marker, and refuses a room that does not match the permits", () => {
    const reserved: ItemMap = {
      ...semaphore,
      readWrite: { BOOL: true },
      reservedBy: { S: "w" },
      reservedPermits: { N: "5" },
      reservedRoom: { N: "0" },
      reservedUntil: { N: "900" },
      reservedSince: { N: "100" },
      reservedFrom: { N: "300" }
    }
    const decoded = SemaphoreItem.decode(semaphoreKeys, layout, reserved)
    expect(decoded._tag).toBe("Ok")
    if (decoded._tag !== "Ok") return
    expect(decoded.value.readWrite).toBe(true)
    expect(decoded.value.reservation).toEqual({
      reservedBy: "w",
      reservedPermits: 5,
      reservedUntil: 900,
      reservedSince: 100,
      reservedFrom: 300
    })
    // The room is what the store's condition reads: one that disagrees with the permits would let the wrong ones in.
    expect(SemaphoreItem.decode(semaphoreKeys, layout, { ...reserved, reservedRoom: { N: "1" } })._tag).not.toBe("Ok")
    expect(SemaphoreItem.decode(semaphoreKeys, layout, { ...reserved, readWrite: { S: "yes" } })._tag).not.toBe("Ok")
    const plain = SemaphoreItem.decode(semaphoreKeys, layout, semaphore)
    expect(plain._tag === "Ok" ? [plain.value.readWrite, plain.value.reservation] : plain).toEqual([
      undefined,
      undefined
    ])
  })
})
