/**
 * A backend's stderr cannot freeze the server, crash it, or leak a secret
 * through it. A real child writes 20 MiB without a newline: a search made
 * meanwhile answers within a second, and the failure names the end of its
 * stderr in a bounded, redacted message. Then the tail itself, fed the way
 * a pipe feeds it (chunks of any size, a character split between two):
 * no piece of a secret survives a cut, and what it holds stays bounded.
 */
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StderrTail } from "../../../src/backends/transports.js";
import { redactor } from "../../../src/util/redact.js";
import { openSession, servers, type Session } from "../../helpers/harness.js";
import { findLeaks, SECRETS } from "../../helpers/leaks.js";

const fixture = fileURLToPath(new URL("../../fixtures/stderr-flood-server.mjs", import.meta.url));
let session: Session;

beforeAll(async () => {
  process.env.MT_QUOTE_TOKEN = SECRETS.MT_QUOTE_TOKEN;
  session = await openSession({
    mcpServers: { flood: { command: process.execPath, args: [fixture], env: { FLOOD_TOKEN: "${MT_QUOTE_TOKEN}" } }, ok: servers.everything() },
    metatools: { code: { enabled: false }, timeouts: { callMs: 20_000 } },
  });
}, 30_000);
afterAll(async () => {
  await session?.close();
  delete process.env.MT_QUOTE_TOKEN;
});

describe("a backend that floods stderr", () => {
  it("20 MiB without a newline: a search meanwhile answers within 1 s, and the failure's stderr is bounded and redacted", async () => {
    const started = performance.now();
    const flood = session.call("run_tool", { tool_id: "flood:flood", args: { mb: 20, at: 1900 } });
    const probes: number[] = [];
    // Searches one after another while the flood is read, each timed from before its pause, so a blocked event loop shows.
    let done = false;
    void flood.finally(() => (done = true));
    while (!done && performance.now() - started < 15_000) {
      const asked = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const probe = await session.call("search_tools", { query: "echo" });
      probes.push(performance.now() - asked);
      expect(probe.total).toBeGreaterThan(0);
    }
    const reply = await flood;
    // Reading the flood costs its length, not its length squared: the backend's failure comes within seconds.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(probes.length).toBeGreaterThan(0);
    expect(Math.max(...probes)).toBeLessThan(1000);
    expect(reply).toMatchObject({ ok: false, error: { code: "backend_down" } });
    const text = JSON.stringify(reply);
    expect(text.length).toBeLessThan(4000);
    // One line, too long to quote: its head, and how long it was.
    expect(reply.error.message).toMatch(/stderr ends with: x{500,600}… \(a line of 2097\d{4} characters, cut\)$/);
    expect(findLeaks(text)).toEqual([]);
    expect((await session.call("run_tool", { tool_id: "ok:echo", args: { message: "still here" } })).result).toContain("still here");
  }, 60_000);
});

describe("the stderr tail", () => {
  const secrets = Object.entries(SECRETS).map(([name, value]) => ({ name, value }));
  const feed = (bytes: Buffer, sizes: (i: number) => number) => {
    const tail = new StderrTail(20, redactor(secrets));
    const stream = new PassThrough();
    tail.attach(stream);
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = Math.max(1, sizes(i));
      stream.write(bytes.subarray(at, at + size));
      at += size;
    }
    stream.end();
    return new Promise<StderrTail>((resolve) => stream.on("end", () => resolve(tail)));
  };

  it("joins a character split between chunks, so a non-ASCII secret is still recognised", async () => {
    const line = Buffer.from(`token=${SECRETS.MT_UNI_SECRET} and ${SECRETS.MT_QUOTE_TOKEN}\n`);
    const tail = await feed(line, () => 1);
    expect(tail.text()).toBe("token=[redacted $MT_UNI_SECRET] and [redacted $MT_QUOTE_TOKEN]");
  });

  it("cuts a long line, finished or not, without leaving a piece of a secret at any cut", async () => {
    const values = Object.values(SECRETS);
    // Secrets every few hundred characters, over and past every place a cut can fall.
    const long = Array.from({ length: 600 }, (_, i) => `${"z".repeat(97 + (i % 13))}${values[i % values.length]}`).join("");
    expect(long.length).toBeGreaterThan(70_000);
    for (const [what, text] of [
      ["finished", `${long}\nafter\n`],
      ["unfinished", long],
    ] as const) {
      for (const size of [1, 7, 4093, 65_536]) {
        const tail = await feed(Buffer.from(text), (i) => size + (i % 3));
        const shown = tail.text();
        expect(findLeaks(shown), `${what}, chunks of ${size}`).toEqual([]);
        expect(shown.length).toBeLessThan(2200);
        expect(shown).toMatch(/^z+\[redacted \$\w+\]z+.*… \(a line of \d+ characters, cut\)/);
        if (what === "finished") expect(shown.endsWith("\nafter")).toBe(true);
      }
    }
  });

  it("keeps only the last lines, each cut, whatever a chunk holds", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${SECRETS.MT_SIX_KEY}`);
    const tail = await feed(Buffer.from(`${lines.join("\r\n")}\r\n${"w".repeat(5000)}\n`), () => 65_536);
    const shown = tail.text().split("\n");
    expect(shown).toHaveLength(20);
    expect(shown[0]).toBe("line 4981 [redacted $MT_SIX_KEY]");
    expect(shown.at(-1)).toBe(`${"w".repeat(2048)}… (a line of 5000 characters, cut)`);
  });
});
