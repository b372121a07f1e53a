import { describe, expect, it } from "vitest"
import * as CampaignBackoff from "../../src/election/CampaignBackoff.js"

const options = { maxBackoffMs: 5_000, pollIntervalMs: 100 }

describe("CampaignBackoff", () => {
  it("starts at the poll interval and doubles with each failure in a row, up to the maximum", () => {
    expect(CampaignBackoff.backoffMs(options, 1, 1)).toBe(100)
    expect(CampaignBackoff.backoffMs(options, 2, 1)).toBe(200)
    expect(CampaignBackoff.backoffMs(options, 6, 1)).toBe(3_200)
    expect(CampaignBackoff.backoffMs(options, 7, 1)).toBe(5_000)
    expect(CampaignBackoff.backoffMs(options, 10_000, 1)).toBe(5_000)
  })

  it("jitters between half and all of it, at least a millisecond", () => {
    expect(CampaignBackoff.backoffMs(options, 2, 0)).toBe(100)
    expect(CampaignBackoff.backoffMs(options, 2, 0.5)).toBe(150)
    expect(CampaignBackoff.backoffMs({ maxBackoffMs: 0, pollIntervalMs: 100 }, 1, 0)).toBe(1)
  })

  it("gives up at the maximum of failures in a row, never when it is infinite", () => {
    expect(CampaignBackoff.givesUp(2, 3)).toBe(false)
    expect(CampaignBackoff.givesUp(3, 3)).toBe(true)
    expect(CampaignBackoff.givesUp(1e9, Infinity)).toBe(false)
  })
})
