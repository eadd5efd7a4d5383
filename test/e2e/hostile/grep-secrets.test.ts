/**
 * Secrets from the environment in project files: a credential cannot be
 * found by grep (no oracle for its value), a value redacted only for where
 * it was substituted can, and every line shown is redacted whole before it
 * is cut, so no piece of either shows.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, tempDir, type Session } from "../../helpers/harness.js";

const STAGE = "production-eu-west-1";
const TOKEN = "ghp_Zq8Wx3Vv7Yy1Kk5Mm9";
let session: Session;

beforeAll(async () => {
  const root = tempDir();
  writeFileSync(
    join(root, "deploy.txt"),
    `stage: ${STAGE}\ntoken: ${TOKEN}\n${"x".repeat(300)} ${STAGE} ${"y".repeat(300)}\nneedle\n${"z".repeat(230)}${STAGE}${TOKEN}\n`,
  );
  process.env.MT_GREP_STAGE = STAGE;
  process.env.MT_GREP_TOKEN = TOKEN;
  session = await openSession({
    mcpServers: { exec: { ...servers.exec(join(root, "calls.log")), env: { STAGE: "${MT_GREP_STAGE}", API_TOKEN: "${MT_GREP_TOKEN}" } } },
    metatools: { code: { root } },
  });
});
afterAll(async () => {
  await session?.close();
  delete process.env.MT_GREP_STAGE;
  delete process.env.MT_GREP_TOKEN;
});

function pieces(secret: string): string[] {
  return Array.from({ length: secret.length - 3 }, (_, i) => secret.slice(i, i + 4));
}

describe("grep over files that hold secrets", () => {
  it("finds a substituted value, shows it redacted, and leaves no piece of it in lines cut around the match", async () => {
    const reply = await session.call("run_tool", { tool_id: "code:grep", args: { pattern: "production" } });
    // The lines only: the reply also echoes the pattern the agent sent.
    const text = JSON.stringify(reply.structured.files);
    expect(reply.structured.files[0].lines).toHaveLength(3);
    expect(text).toContain("[redacted $MT_GREP_STAGE]");
    for (const piece of pieces(STAGE)) expect(text).not.toContain(piece);
  });

  it("a context line cut through a secret shows none of it", async () => {
    const reply = await session.call("run_tool", { tool_id: "code:grep", args: { pattern: "needle", context_lines: 1 } });
    const text = JSON.stringify(reply.structured.files);
    expect(text).toContain("zzz");
    for (const piece of [...pieces(STAGE), ...pieces(TOKEN)]) expect(text).not.toContain(piece);
  });

  it("cannot find a credential by its value, nor show it", async () => {
    const prefix = await session.call("run_tool", { tool_id: "code:grep", args: { pattern: "ghp_Zq8" } });
    expect(prefix.structured.files).toEqual([]);
    const line = await session.call("run_tool", { tool_id: "code:grep", args: { pattern: "^token:" } });
    const text = JSON.stringify(line);
    expect(text).toContain("[redacted $MT_GREP_TOKEN]");
    for (const piece of pieces(TOKEN)) expect(text).not.toContain(piece);
  });
});
