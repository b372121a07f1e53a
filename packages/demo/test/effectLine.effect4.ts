/**
 * Effect 4's side of what the demo's tests take from their line (Effect 3's is `effectLine.ts`): which line's workers
 * the end-to-end run starts, and where the demo's parent is: the repository's `packages/demo`, which runs on Effect 3
 * for both lines and starts this line's workers from here (`npm run demo -- --effect 4`).
 */
import { fileURLToPath } from "node:url"

export const line = "4"
export const demoDirectory = fileURLToPath(new URL("../../../../packages/demo/", import.meta.url))
