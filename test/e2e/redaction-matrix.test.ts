/**
 * Secrets from the environment never show, whole or in pieces, whatever
 * way they come back. A real backend (test/fixtures/echo-server.mjs) is given
 * six secrets (quotes, backslashes, a tab, `@`, `+`, `%`, spaces,
 * non-ASCII; 6 to 200 characters) and echoes them in every form and place
 * it can: result text, structured content (keys and values), a resource, a
 * spilled result, a JSON document, its tool definitions, progress
 * messages, an error result, a protocol error, and its stderr before it
 * crashes. A second copy crashes at start; a remote backend has secrets in
 * its URL's password, a URL parameter and a header. Each is read through
 * every path: run_tool inline, read_output by lines, by columns (through
 * where the secrets were), by JSON path and grep, the spill summaries,
 * describe_tool, search_tools, in process, over HTTP and through the CLI
 * (run, describe, search, doctor) with debug logs. Each path is checked for
 * the `[redacted` marker, so it surely carried a secret, and for leaks
 * (test/helpers/leaks.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { openSession, tempDir } from "../helpers/harness.js";
import { findLeaks, SECRETS } from "../helpers/leaks.js";
import { httpClientTransport, startHttp } from "../helpers/serve.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/echo-server.mjs", import.meta.url));
const READ = "metatools:read_output";
const MARK = "[redacted";

/** ECHO_* variables, sorted as the fixture sorts them; the last (the quote secret) ends the stderr tail. */
const echoEnv = {
  ECHO_A: "${MT_LONG_TOKEN}",
  ECHO_B: "${MT_SIX_KEY}",
  ECHO_C: "${MT_SPACE_PASSWORD}",
  ECHO_D: "${MT_UNI_SECRET}",
  ECHO_E: "${MT_URL_PASS}",
  ECHO_F: "${MT_QUOTE_TOKEN}",
};

const CONFIG = {
  mcpServers: {
    echo: { command: process.execPath, args: [FIXTURE], env: echoEnv },
    broken: { command: process.execPath, args: [FIXTURE, "--api-key", "${MT_SIX_KEY}"], env: { ...echoEnv, ECHO_MODE: "crash" } },
    remote: { url: "http://mtuser:${MT_URL_PASS}@127.0.0.1:9/mcp?api_key=${MT_SIX_KEY}", headers: { Authorization: "Bearer ${MT_LONG_TOKEN}" } },
  },
  metatools: { code: { enabled: false } },
};

type Call = (name: string, args: Record<string, unknown>) => Promise<string>;
/** What each path showed; `marked: false` for one that need not have carried a secret. */
type Seen = { path: string; text: string; marked?: false }[];

/** Every meta-tool path, in order; returns what each answered. */
async function exercise(call: Call): Promise<Seen> {
  const seen: Seen = [];
  const read = async (path: string, name: string, args: Record<string, unknown>, marked = true) => {
    const text = await call(name, args);
    seen.push({ path, text, ...(marked ? {} : { marked: false as const }) });
    return JSON.parse(text) as Record<string, any>;
  };
  const run = (path: string, toolId: string, args: Record<string, unknown> = {}, marked = true) => read(path, "run_tool", { tool_id: toolId, args }, marked);

  await read("search_tools", "search_tools", { query: "echoes back values", limit: 10 });
  await read("describe_tool", "describe_tool", { tool_id: "echo:echo", detail_level: "full" });
  const inline = await run("run_tool inline", "echo:echo");
  expect(inline.ok).toBe(true);
  expect(inline.handle).toBeUndefined();

  const big = await run("spill summary (text)", "echo:big");
  const handle = big.handle as string;
  expect(handle).toMatch(/^@out_/);
  await run("read_output lines", READ, { handle, start_line: 1, end_line: 12 });
  await run("read_output grep", READ, { handle, grep: "^grep " });
  // The long line (13): read on from column 1 to its end, then again from just inside each marker, where the secrets were.
  // A piece need not hold a marker; the pieces together hold all of them.
  let args: Record<string, unknown> | undefined = { handle, start_line: 13, start_column: 1 };
  let line = "";
  while (args) {
    const piece = await run(`read_output columns from ${String(args.start_column)}`, READ, args, false);
    line += piece.structured.content as string;
    const next = piece.next?.arguments?.args as Record<string, unknown> | undefined;
    args = next?.start_line === 13 && next.start_column ? next : undefined;
  }
  expect(line.match(/\[redacted \$MT_\w+\]/g)).toHaveLength(Object.keys(SECRETS).length);
  seen.push({ path: "read_output columns, joined", text: line });
  for (const marker of line.matchAll(/\[redacted/g))
    await run("read_output through a marker", READ, { handle, start_line: 13, start_column: marker.index + 4 }, false);

  const doc = await run("spill summary (JSON)", "echo:big_json");
  expect(JSON.stringify(doc)).toMatch(/"handle":"@out_/);
  await run("read_output json_path", READ, { handle: doc.handle, json_path: "$.items[0:3]" });
  await run("error result", "echo:fail");
  await run("protocol error", "echo:throws");
  await run("stderr tail after a crash", "echo:crash");
  return seen;
}

/** Each path carried a marker (so a secret was there) and no piece of any secret. */
function expectRedacted(seen: Seen): void {
  for (const { path, text, marked } of seen) {
    if (marked !== false) expect(text, path).toContain(MARK);
    expect(findLeaks(text), path).toEqual([]);
  }
}

let dir: string;
let configFile: string;
beforeAll(() => {
  dir = tempDir();
  configFile = join(dir, "metatools.json");
  writeFileSync(configFile, JSON.stringify(CONFIG));
});

describe("the leak check", () => {
  it("finds a secret's pieces in every form it looks for", () => {
    const secret = SECRETS.MT_QUOTE_TOKEN!;
    const url = new URL("http://u@h/");
    url.password = SECRETS.MT_URL_PASS!;
    for (const leaked of [
      secret.slice(3, 7),
      JSON.stringify(secret).slice(4, 10),
      encodeURIComponent(secret).slice(0, 12),
      url.href,
      Buffer.from(`xy${SECRETS.MT_LONG_TOKEN}`).toString("base64url").slice(40, 60),
    ]) {
      expect(findLeaks(`before ${leaked} after`), leaked).not.toEqual([]);
    }
    expect(findLeaks(`${MARK} $MT_QUOTE_TOKEN] {"ok":true,"handle":"@out_abcdefgh12345678"}`)).toEqual([]);
  });
});

describe("in process: every meta-tool path, and progress", () => {
  const saved = { ...process.env };
  afterAll(() => {
    for (const name of Object.keys(SECRETS)) if (saved[name] === undefined) delete process.env[name];
  });

  it("shows every secret redacted, never in part", async () => {
    Object.assign(process.env, SECRETS);
    const session = await openSession(CONFIG, { file: configFile, builtinCatalog: false });
    try {
      // Progress first: the exercise ends by crashing the backend.
      const messages: string[] = [];
      const result = await session.client.callTool({ name: "run_tool", arguments: { tool_id: "echo:progress" } }, undefined, {
        onprogress: (p) => messages.push(String(p.message)),
      });
      expect(messages).toHaveLength(Object.keys(SECRETS).length);
      expect(JSON.stringify(result)).toContain("done");
      const seen = await exercise(async (name, args) => (await session.raw(name, args)).text);
      seen.push({ path: "progress messages", text: messages.join("\n") });
      expectRedacted(seen);
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe("over HTTP, with the server's debug log", () => {
  it("shows every secret redacted, never in part", async () => {
    const server = await startHttp(["--config", configFile, "--log-level", "debug"], SECRETS);
    const client = new Client({ name: "redaction-test", version: "1.0.0" });
    try {
      await client.connect(httpClientTransport(server.url));
      const seen = await exercise(async (name, args) => {
        const result = await client.callTool({ name, arguments: args });
        return (result.content as { text: string }[])[0]!.text;
      });
      seen.push({ path: "instructions", text: client.getInstructions() ?? "", marked: false });
      await client.close();
      await server.stop();
      seen.push({ path: "server log", text: server.stderr() });
      expectRedacted(seen);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe("the CLI, with debug logs", () => {
  const commands: [string, string[]][] = [
    ["search --json", ["search", "echoes back values", "--json"]],
    ["search", ["search", "echoes back values"]],
    ["describe --json", ["describe", "echo:echo", "--detail", "full", "--json"]],
    ["describe", ["describe", "echo:echo", "--detail", "full"]],
    ["run --json", ["run", "echo:echo", "--json"]],
    ["run", ["run", "echo:echo"]],
    ["run (spilled)", ["run", "echo:big", "--json"]],
    ["run (error)", ["run", "echo:fail"]],
    ["run (protocol error)", ["run", "echo:throws"]],
    ["doctor", ["doctor"]],
    ["doctor --json", ["doctor", "--json"]],
  ];

  it("shows every secret redacted, never in part, on stdout and in the log", async () => {
    const seen: Seen = [];
    // Three at a time: each command starts its own backends.
    for (let i = 0; i < commands.length; i += 3) {
      const batch = commands.slice(i, i + 3);
      const results = await Promise.all(
        batch.map(([, argv]) => runCli([...argv, "--config", configFile, "--log-level", "debug"], { env: { ...SECRETS, FORCE_COLOR: "0" } })),
      );
      results.forEach((r, j) => {
        const [name] = batch[j]!;
        // A protocol error is said on stderr only; every log has the failing backends' errors.
        seen.push(
          { path: `${name}: stdout`, text: r.stdout, ...(name === "run (protocol error)" ? { marked: false as const } : {}) },
          { path: `${name}: stderr`, text: r.stderr },
        );
      });
    }
    expectRedacted(seen);
    expect(seen.find((s) => s.path === "run (protocol error): stderr")!.text).toMatch(/refused: \[redacted/);
  }, 120_000);
});
