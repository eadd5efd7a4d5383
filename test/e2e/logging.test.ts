/**
 * MCP logging through metatools: a client's `logging/setLevel` reaches the
 * backends, their messages come back under their namespace, filtered by
 * the level, and metatools' own warnings and errors arrive as `metatools`.
 */
import { fileURLToPath } from "node:url";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, type Session } from "../helpers/harness.js";

const MEDIA = fileURLToPath(new URL("../fixtures/media-server.mjs", import.meta.url));

let session: Session;
const received: LoggingMessageNotification["params"][] = [];

beforeAll(async () => {
  session = await openSession({
    mcpServers: { media: { command: process.execPath, args: [MEDIA] }, everything: servers.everything() },
    metatools: { code: { enabled: false } },
  });
  session.client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void received.push(params));
});
afterAll(() => session.close());

/** The messages from `logger` that arrive while `action` runs (and just after). */
async function logged(logger: string, action: () => Promise<unknown>): Promise<string[]> {
  received.length = 0;
  await action();
  await new Promise((r) => setTimeout(r, 200));
  return received.filter((m) => m.logger === logger).map((m) => m.level);
}

describe("MCP logging", () => {
  it("sends warnings and above until the client sets a level, then exactly the levels it asked for, and back", async () => {
    const logAll = () => session.call("run_tool", { tool_id: "media:log_all" });
    expect(await logged("media/fixture", logAll)).toEqual(["warning", "error", "critical", "alert", "emergency"]);

    await session.client.setLoggingLevel("debug");
    expect(await logged("media/fixture", logAll)).toEqual(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);
    expect(received.find((m) => m.logger === "media/fixture")?.data).toBe("a debug message");

    await session.client.setLoggingLevel("error");
    expect(await logged("media/fixture", logAll)).toEqual(["error", "critical", "alert", "emergency"]);
  });

  it("forwards server-everything's simulated logging under its namespace", async () => {
    await session.client.setLoggingLevel("debug");
    const levels = await logged("everything", () => session.call("run_tool", { tool_id: "everything:toggle-simulated-logging" }));
    await session.call("run_tool", { tool_id: "everything:toggle-simulated-logging" });
    // It logs once at once, at a random level: debug lets every level through.
    expect(levels.length).toBeGreaterThanOrEqual(1);
  });
});

describe("metatools' own warnings", () => {
  it("a backend that fails to start is reported to the client as an error of logger metatools", async () => {
    const failing = await openSession({
      mcpServers: { broken: { command: process.execPath, args: ["-e", "process.exit(3)"] } },
      metatools: { code: { enabled: false } },
    });
    const mine: LoggingMessageNotification["params"][] = [];
    failing.client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void mine.push(params));
    try {
      // The retries (every 200-400 ms in tests) log the failure again, now that a client listens.
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && !mine.some((m) => m.logger === "metatools")) await new Promise((r) => setTimeout(r, 100));
      const message = mine.find((m) => m.logger === "metatools");
      expect(message?.level).toMatch(/^(warning|error)$/);
      expect(String(message?.data)).toContain("broken");
    } finally {
      await failing.close();
    }
  });
});
