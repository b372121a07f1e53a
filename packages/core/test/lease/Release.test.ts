import { describe, expect, it } from "vitest"
import * as Release from "../../src/lease/Release.js"

describe("Release", () => {
  it("tries three times in all, each attempt for a second at most", () => {
    expect(Release.attempts).toBe(3)
    expect(Release.attemptTimeoutMs).toBe(1_000)
  })

  it("retries a run of attempts after 50 ms, then doubling; its first attempt goes at once", () => {
    expect(Release.retryDelaysMs(1)).toEqual([])
    expect(Release.retryDelaysMs(2)).toEqual([50])
    expect(Release.retryDelaysMs(3)).toEqual([50, 100])
    expect(Release.retryDelaysMs(4)).toEqual([50, 100, 200])
    expect(Release.retryDelaysMs(0)).toEqual([])
  })

  describe("plan", () => {
    it("makes the caller wait for the first attempt, and leaves the other two to the background", () => {
      expect(Release.plan({ answersAtOnce: false, alreadyLost: false }))
        .toEqual({ _tag: "CallerFirst", retryDelaysMs: [50] })
    })

    it("leaves every attempt of a lease already lost to the background", () => {
      expect(Release.plan({ answersAtOnce: false, alreadyLost: true }))
        .toEqual({ _tag: "Background", retryDelaysMs: [50, 100] })
    })

    it("makes one call the caller waits for on a store that answers at once, lost or not", () => {
      expect(Release.plan({ answersAtOnce: true, alreadyLost: false })).toEqual({ _tag: "Once" })
      expect(Release.plan({ answersAtOnce: true, alreadyLost: true })).toEqual({ _tag: "Once" })
    })
  })
})
