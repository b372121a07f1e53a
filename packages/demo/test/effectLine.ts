/**
 * Effect 3's side of what the demo's tests take from their line (Effect 4's is `effectLine.effect4.ts`): which line's
 * workers the end-to-end run starts, and where the demo's parent is (this package: it runs on Effect 3 for both).
 */
import { fileURLToPath } from "node:url"

export const line = "3"
export const demoDirectory = fileURLToPath(new URL("..", import.meta.url))
