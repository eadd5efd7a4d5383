/**
 * A backend's progress read in one chunk with its answer (a fast tool, a
 * busy machine) still reaches the caller, all of it and in order, before the
 * result. The backend writes five progress notifications and its result at
 * once; the caller is a real SDK client on an in-memory link, so what it
 * receives is what metatools forwarded.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openSession } from "../helpers/harness.js";

const BURST = fileURLToPath(new URL("../fixtures/burst-progress-server.mjs", import.meta.url));

describe("progress read with the answer", () => {
  it("reaches the caller, every step in order, before the result", async () => {
    const session = await openSession({ mcpServers: { burst: { command: process.execPath, args: [BURST] } }, metatools: { code: { enabled: false } } });
    try {
      for (let round = 0; round < 5; round++) {
        const steps: string[] = [];
        const result = await session.client.callTool({ name: "run_tool", arguments: { tool_id: "burst:burst", cache: "bypass" } }, undefined, {
          onprogress: (p) => steps.push(String(p.message)),
        });
        expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ ok: true, result: "done" });
        expect(steps).toEqual(["step 1", "step 2", "step 3", "step 4", "step 5"]);
      }
    } finally {
      await session.close();
    }
  });
});
