/**
 * `metatools eval DIR` on a set of servers (DIR/metatools.json instead of a
 * tools.jsonl), through the built CLI: the servers are started and searched
 * as configured, ids are the served `namespace:name`, and --no-catalog and
 * --no-server-words show what the curated catalog and what servers say of
 * themselves add. A server that does not come up stops the measure with a
 * line naming it. The project's own set (datasets/reference-servers) is run
 * the same way.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/about-server.mjs", import.meta.url));
const REFERENCE = fileURLToPath(new URL("../../datasets/reference-servers", import.meta.url));

/** Two namespaces of the about-server fixture, the wiki one saying what it is; requests only its words tell apart. */
function liveSet(servers: Record<string, unknown>): string {
  const dir = tempDir();
  writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: servers, metatools: { code: { enabled: false } } }));
  const queries = [
    { id: "1", query: "list the onboarding pages", relevant: ["wiki:list_pages"] },
    { id: "2", query: "open the page with the incident runbook", relevant: ["wiki:fetch_page", "wiki:list_pages"] },
    { id: "3", query: "postmortem template", relevant: ["wiki:find"] },
  ];
  writeFileSync(join(dir, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\n"));
  return dir;
}

const hit1 = (stdout: string) => JSON.parse(stdout).bm25["hit@1"] as number;

describe("metatools eval on a set of servers", () => {
  it("starts them, measures by served ids, and shows what the servers' words add", async () => {
    const dir = liveSet({
      plain: { command: process.execPath, args: [FIXTURE], env: { ABOUT: "none" } },
      wiki: { command: process.execPath, args: [FIXTURE] },
    });
    const said = await runCli(["eval", dir, "--mode", "bm25", "--json"], { cwd: dir });
    expect(said.code).toBe(0);
    expect(JSON.parse(said.stdout).bm25).toMatchObject({ queries: 3 });
    expect(hit1(said.stdout)).toBe(1);
    const silent = await runCli(["eval", dir, "--mode", "bm25", "--json", "--no-server-words"], { cwd: dir });
    expect(silent.code).toBe(0);
    // Without them the tie goes to "plain", and the hint is gone.
    expect(hit1(silent.stdout)).toBe(0);
  }, 60_000);

  it("stops with a line naming a server that does not come up", async () => {
    const dir = liveSet({ wiki: { command: process.execPath, args: [FIXTURE] }, broken: { command: process.execPath, args: ["-e", "process.exit(3)"] } });
    const ran = await runCli(["eval", dir, "--mode", "bm25"], { cwd: dir });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/broken \(from .*metatools.json\) did not come up .*failed to start/);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("runs the project's set of reference servers, where the curated catalog makes the difference", async () => {
    const json = (r: { stdout: string }) => JSON.parse(r.stdout).hybrid as { "ndcg@10": number; splits: Record<string, { "ndcg@10": number }> };
    const [withCatalog, without] = await Promise.all([
      runCli(["eval", REFERENCE, "--json"]).then(json),
      runCli(["eval", REFERENCE, "--json", "--no-catalog"]).then(json),
    ]);
    expect(Object.keys(withCatalog.splits).sort()).toEqual(["everyday", "everything", "filesystem", "memory", "sequential-thinking"]);
    expect(withCatalog["ndcg@10"]).toBeGreaterThan(without["ndcg@10"] + 0.05);
    expect(withCatalog.splits.memory!["ndcg@10"]).toBeGreaterThan(without.splits.memory!["ndcg@10"] + 0.2);
  }, 120_000);
});
