/**
 * How often the result scanner warns on honest output: every tool of the
 * public server-everything and server-filesystem (over a copy of this
 * repository's src/ and docs/, realistic files), run with reasonable
 * arguments, through the real server. A warning on a result that quotes no
 * injection text is a false positive; the figure is in docs/security.md
 * (logged here as "result scan: …").
 */
import { cpSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, tempDir, type Session } from "../../helpers/harness.js";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
/** Files that quote injection text on purpose (the scanner's own docs and sources): a warning on them is a true detection. */
const QUOTES_INJECTIONS = ["docs/security.md", "docs/responses.md", "src/security/text.ts", "src/security/scan.ts", "src/meta/result-scan.ts"];

const everythingArgs: Record<string, Record<string, unknown>> = {
  echo: { message: "Hello from the false-positive run" },
  "get-annotated-message": { messageType: "success", includeImage: true },
  "get-resource-links": { count: 10 },
  "get-resource-reference": { resourceType: "Text", resourceId: 2 },
  "get-structured-content": { location: "Chicago" },
  "get-sum": { a: 2, b: 40 },
  // No network: the file comes as a data URI.
  "gzip-file-as-resource": { name: "notes.txt.gz", data: `data:text/plain;base64,${Buffer.from("Meeting notes: ship on Friday.\n").toString("base64")}` },
  "trigger-long-running-operation": { duration: 1, steps: 1 },
  "simulate-research-query": { topic: "history of the printing press" },
};

let session: Session;
let root: string;
const files: string[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  root = tempDir();
  for (const part of ["src", "docs"]) cpSync(join(REPO, part), join(root, part), { recursive: true });
  const walk = (dir: string): void => {
    dirs.push(dir);
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(root);
  session = await openSession({ mcpServers: { everything: servers.everything(), files: servers.filesystem(root) }, metatools: { code: { enabled: false } } });
}, 60_000);
afterAll(() => session.close());

interface Tally {
  results: number;
  flagged: { call: string; warning: string }[];
}

async function tally(calls: { tool_id: string; args: Record<string, unknown>; label: string }[]): Promise<Tally> {
  const out: Tally = { results: 0, flagged: [] };
  for (const { tool_id, args, label } of calls) {
    const body = await session.call("run_tool", { tool_id, args, timeout_ms: 20_000 });
    expect(body.ok !== undefined || body.error, `${label}: ${JSON.stringify(body).slice(0, 300)}`).toBeTruthy();
    out.results++;
    const said = String(body.warning ?? "");
    if (said.includes("reads as instructions to you")) out.flagged.push({ call: label, warning: said });
  }
  return out;
}

describe("result scan false positives on public servers' real output", () => {
  it("server-everything: every tool, no warning", async () => {
    const tools = session.app.registry.namespaceRecords("everything");
    expect(tools.length).toBeGreaterThan(8);
    const calls = tools.map((tool) => {
      // Tools not in the table (those that ask the client: sampling, elicitation) get plain values for what they require.
      const args: Record<string, unknown> = { ...everythingArgs[tool.name] };
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
      for (const name of (tool.inputSchema.required as string[] | undefined) ?? [])
        args[name] ??= properties[name]?.type === "number" || properties[name]?.type === "integer" ? 1 : "Say hello in five words.";
      return { tool_id: tool.id, args, label: tool.id };
    });
    const { results, flagged } = await tally(calls);
    console.log(`result scan: server-everything ${flagged.length} of ${results} results warned`);
    expect(flagged).toEqual([]);
  }, 120_000);

  it("server-filesystem over src/ and docs/: every tool; only files that quote injections are warned on", async () => {
    const rel = (path: string) => relative(root, path);
    const scratch = join(root, "scratch");
    const calls = [
      { tool_id: "files:list_allowed_directories", args: {}, label: "list_allowed_directories" },
      { tool_id: "files:directory_tree", args: { path: root }, label: "directory_tree" },
      ...["scan", "test", "README", "*.md"].map((pattern) => ({
        tool_id: "files:search_files",
        args: { path: root, pattern },
        label: `search_files ${pattern}`,
      })),
      ...dirs.flatMap((dir) => [
        { tool_id: "files:list_directory", args: { path: dir }, label: `list_directory ${rel(dir)}` },
        { tool_id: "files:list_directory_with_sizes", args: { path: dir, sortBy: "size" }, label: `list_directory_with_sizes ${rel(dir)}` },
      ]),
      ...files.flatMap((file) => [
        { tool_id: "files:read_text_file", args: { path: file }, label: `read_text_file ${rel(file)}` },
        { tool_id: "files:get_file_info", args: { path: file }, label: `get_file_info ${rel(file)}` },
      ]),
      { tool_id: "files:read_file", args: { path: files[0], head: 20 }, label: `read_file ${rel(files[0]!)}` },
      ...Array.from({ length: Math.ceil(files.length / 8) }, (_, i) => files.slice(i * 8, i * 8 + 8)).map((batch) => ({
        tool_id: "files:read_multiple_files",
        args: { paths: batch },
        label: `read_multiple_files ${batch.map(rel).join(",")}`,
      })),
      ...files
        .filter((f) => f.endsWith(".svg"))
        .map((file) => ({ tool_id: "files:read_media_file", args: { path: file }, label: `read_media_file ${rel(file)}` })),
      { tool_id: "files:create_directory", args: { path: scratch }, label: "create_directory" },
      { tool_id: "files:write_file", args: { path: join(scratch, "note.md"), content: "# Note\nShip on Friday.\n" }, label: "write_file" },
      {
        tool_id: "files:edit_file",
        args: { path: join(scratch, "note.md"), edits: [{ oldText: "Friday", newText: "Monday" }], dryRun: true },
        label: "edit_file",
      },
      { tool_id: "files:move_file", args: { source: join(scratch, "note.md"), destination: join(scratch, "moved.md") }, label: "move_file" },
    ];
    const { results, flagged } = await tally(calls);
    const quoting = flagged.filter(({ call }) => QUOTES_INJECTIONS.some((file) => call.includes(file)));
    const falsePositives = flagged.filter((f) => !quoting.includes(f));
    console.log(
      `result scan: server-filesystem ${flagged.length} of ${results} results warned (${files.length} files); ` +
        `${quoting.length} read a file that quotes injection text, false positives: ${falsePositives.length}\n` +
        flagged.map((f) => `  ${f.call}: ${f.warning.slice(0, 200)}`).join("\n"),
    );
    expect(falsePositives).toEqual([]);
    // The scanner does see the injections its own docs quote.
    expect(quoting.some(({ call }) => call === "read_text_file docs/security.md")).toBe(true);
  }, 300_000);
});
