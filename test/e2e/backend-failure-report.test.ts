/**
 * What an agent and a person are told about a backend that fails at start
 * with stderr output: the same status word in search and doctor ("failed",
 * with when it is tried again), and the end of its stderr in whole lines,
 * saying how many came before, since the end is what explains the failure.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";

/** What npx prints for a package that is not in the registry, in the same shape: many lines, the telling ones last. */
const NPX_LINES = [
  ...Array.from({ length: 12 }, (_, i) => `npm error 404 line ${String(i + 1).padStart(2, "0")}: '@acme/mcp-server-nope@*' is not in this registry`),
  "npm error A complete log of this run can be found in: /tmp/npm-cache/_logs/debug-0.log",
];
/** One stderr line far longer than any message may quote, of 8-character words. */
const LONG_LINE = Array.from({ length: 150 }, (_, i) => `alpha${String(i + 1).padStart(3, "0")}`).join(" ");

/** A server that writes `lines` to stderr and exits; it waits a moment so every line has arrived when the connection closes. */
function failingServer(dir: string, name: string, lines: readonly string[]): { command: string; args: string[] } {
  const script = join(dir, `${name}.mjs`);
  writeFileSync(script, `process.stderr.write(${JSON.stringify(lines.map((l) => `${l}\n`).join(""))});\nsetTimeout(() => process.exit(1), 100);\n`);
  return { command: process.execPath, args: [script] };
}

let file: string;

beforeAll(() => {
  const dir = tempDir();
  file = join(dir, "metatools.json");
  const mcpServers = { npx404: failingServer(dir, "npx404", NPX_LINES), oneline: failingServer(dir, "oneline", [LONG_LINE]) };
  writeFileSync(file, JSON.stringify({ mcpServers, metatools: { code: { enabled: false }, search: { embedder: false } } }));
});

interface Unavailable {
  namespace: string;
  status: string;
  error: string;
  retry_at?: string;
}

async function unavailable(): Promise<Record<string, Unavailable>> {
  const { code, stdout, stderr } = await runCli(["search", "anything", "--json", "--config", file]);
  expect(code, stderr).toBe(0);
  return Object.fromEntries((JSON.parse(stdout).unavailable as Unavailable[]).map((u) => [u.namespace, u]));
}

async function doctor(): Promise<Record<string, { status: string; detail: string }>> {
  const { stdout } = await runCli(["doctor", "--json", "--config", file]);
  return Object.fromEntries((JSON.parse(stdout).backends as { namespace: string; status: string; detail: string }[]).map((b) => [b.namespace, b]));
}

/** The count a "… (N earlier lines)" line or line end gives. */
const earlier = (text: string) => Number(/… \((\d+) earlier lines?\)$/.exec(text)?.[1] ?? NaN);

describe("a backend that fails at start with stderr output", () => {
  it("is 'failed' in search, as in doctor, with when it is tried again", async () => {
    const [search, report] = await Promise.all([unavailable(), doctor()]);
    for (const name of ["npx404", "oneline"]) {
      expect(report[name]!.status).toBe("failed");
      expect(search[name]).toMatchObject({ status: "failed", retry_at: expect.any(String) });
      expect(Date.parse(search[name]!.retry_at!)).toBeGreaterThan(Date.now() - 60_000);
    }
  });

  it("search quotes the last whole lines of its stderr within 300 characters, saying how many were left out", async () => {
    const { error } = (await unavailable()).npx404!;
    expect(error.length).toBeLessThanOrEqual(300);
    const [marker, ...shown] = error.split("\n");
    expect(shown.length).toBeGreaterThan(1);
    // Whole lines, the last ones, in order.
    expect(shown).toEqual(NPX_LINES.slice(-shown.length));
    // Left out: the message's own line and every stderr line not shown.
    expect(earlier(marker!)).toBe(1 + NPX_LINES.length - shown.length);
  });

  it("doctor quotes its stderr from a line boundary, not from the middle of a line", async () => {
    const { detail } = (await doctor()).npx404!;
    const [first, ...shown] = detail.split("\n");
    expect(first).toMatch(/^npx404 \(command `.*`\) failed to start: .*; its stderr ends with: … \(\d+ earlier lines\)$/);
    expect(shown).toEqual(NPX_LINES.slice(-shown.length));
    expect(shown.join("\n").length).toBeLessThanOrEqual(600);
    expect(earlier(first!) + shown.length).toBe(NPX_LINES.length);
  });

  it("a single over-long line is cut after a whole word, with an ellipsis, in search and in doctor", async () => {
    const [search, report] = await Promise.all([unavailable(), doctor()]);
    const quoted = search.oneline!.error;
    expect(quoted.length).toBeLessThanOrEqual(300);
    expect(quoted).toMatch(/^oneline \(command `.*`\) failed to start: .*; its stderr ends with: alpha001 alpha002 .*alpha\d{3}…$/);
    const detail = report.oneline!.detail;
    expect(detail).toMatch(/its stderr ends with: alpha001 alpha002 .*alpha\d{3}…$/);
    const kept = detail.slice(detail.indexOf("alpha001"), -1);
    expect(kept.length).toBeLessThanOrEqual(600);
    expect(LONG_LINE.startsWith(`${kept} `)).toBe(true);
  });
});
