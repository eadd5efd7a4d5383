// Cold serve at N tools (hybrid, built-in embedder, empty caches): seconds until a search ranks the catalog's tools hybrid with nothing still embedding or indexing.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, readFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const [cli, tools] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "probe-"));
copyFileSync(tools, join(dir, "tools.jsonl"));
const config = join(dir, "c.json");
(await import("node:fs")).writeFileSync(config, JSON.stringify({ mcpServers: { bench: { type: "catalog", tools: join(dir, "tools.jsonl") } }, metatools: { code: { enabled: false } } }));
const c = new Client({ name: "x", version: "1" });
const t = new StdioClientTransport({ command: process.execPath, args: [...(process.env.PROF ? ["--cpu-prof", "--cpu-prof-dir=" + process.env.PROF, "--cpu-prof-interval=2000"] : []), cli, "serve", "--config", config, "--log-level", "error"], env: { ...getDefaultEnvironment(), XDG_CACHE_HOME: join(dir, "cache") }, stderr: "ignore" });
const t0 = performance.now();
await c.connect(t);
let first;
for (;;) {
  const r = await c.callTool({ name: "search_tools", arguments: { query: "create invoice" } });
  const text = r.content[0].text; const b = JSON.parse(text);
  const s = (performance.now() - t0) / 1000;
  if (first === undefined && b.hits?.some((h) => h.id.startsWith("bench:"))) first = s;
  if (b.mode === "hybrid" && !/still/.test(text) && b.hits?.some((h) => h.id.startsWith("bench:"))) { console.log(`first bench hit ${first?.toFixed(1)} s, fully hybrid ${s.toFixed(1)} s, rss ${(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${t.pid}/status`, "utf8"))[1]) / 1024).toFixed(0)} MB`); break; }
  if (s > 300) { console.log("not done after 300 s"); break; }
  await new Promise((r) => setTimeout(r, 500));
}
await c.close();
