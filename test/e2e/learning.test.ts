/**
 * Search that learns from use, from outside: real MCP sessions over a real
 * backend (the executor fixture), a real Redis shared by two servers, and
 * the built `metatools learn` command.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Metatools } from "../../src/app.js";
import { createMetatools, BUILTIN_CATALOG_DIR } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigFile } from "../../src/config/schema.js";
import { createSessionServer } from "../../src/serving.js";
import { runCli } from "../helpers/cli.js";
import { eventually } from "../helpers/eventually.js";
import { servers, tempDir, writeSyntheticTools } from "../helpers/harness.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

const TASK = "archive the quarterly numbers for finance";
const SIMILAR = "archive quarterly numbers for the finance team";

async function startApp(config: ConfigFile, file = join(tempDir(), "metatools.json")): Promise<Metatools> {
  writeFileSync(file, JSON.stringify(config));
  const app = createMetatools(parseConfig(config, { file, builtinCatalogDir: BUILTIN_CATALOG_DIR }));
  await app.start();
  return app;
}

/** A new MCP session (its own server and client) on `app`: what one session learns, the next uses. */
async function session(app: Metatools) {
  const server = createSessionServer(app);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "learning-test", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, any>;
  };
  return {
    search: async (query: string) => ((await call("search_tools", { query, limit: 5 })).hits as { id: string }[]).map((h) => h.id),
    run: (tool_id: string, args: Record<string, unknown>) => call("run_tool", { tool_id, args }),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

const execConfig = (extra: Record<string, unknown> = {}): ConfigFile => ({
  mcpServers: { exec: servers.exec(join(tempDir(), "calls.log")) },
  metatools: { search: { embedder: false }, ...extra },
});

describe("search that learns from use", () => {
  it("a search followed by a successful run ranks that tool first for a similar task in the next session", async () => {
    const app = await startApp(execConfig());
    try {
      const first = await session(app);
      expect(await first.search(TASK)).not.toContain("exec:put");
      expect((await first.run("exec:put", { key: "report", value: "# Q3" })).ok).not.toBe(false);
      await first.close();
      const next = await session(app);
      expect((await next.search(SIMILAR))[0]).toBe("exec:put");
      await next.close();
    } finally {
      await app.close();
    }
  });

  it("a failed run lowers what was learned; with learn: false nothing is learned", async () => {
    const app = await startApp(execConfig());
    try {
      for (const value of ["# Q3", "# Q4"]) {
        const s = await session(app);
        await s.search(TASK);
        await s.run("exec:put", { key: "report", value });
        await s.close();
      }
      const learned = async () => (await app.learner!.rank(TASK, () => true)).hits[0]!.score;
      const before = await learned();
      const failing = await session(app);
      await failing.search(TASK);
      await failing.run("exec:put", { key: "report", value: "fail" });
      await failing.close();
      expect(await learned()).toBeLessThan(before);
    } finally {
      await app.close();
    }
    const off = await startApp(execConfig({ learn: false }));
    try {
      expect(off.learner).toBeUndefined();
      const s = await session(off);
      const before = await s.search(TASK);
      await s.run("exec:put", { key: "report", value: "# Q3" });
      expect(await s.search(TASK)).toEqual(before);
      await s.close();
    } finally {
      await off.close();
    }
  });

  it("with no history, every search ranks exactly as with learning off", async () => {
    const tools = writeSyntheticTools(tempDir(), 400, 7);
    const config = (learn?: false): ConfigFile => ({ mcpServers: { synth: { type: "catalog", tools } }, metatools: { ...(learn === false ? { learn } : {}) } });
    const [on, off] = await Promise.all([startApp(config()), startApp(config(false))]);
    try {
      await Promise.all([on.search.semantic?.whenIdle(), off.search.semantic?.whenIdle()]);
      const names = on.registry.namespaceRecords("synth").map((r) => r.description.split(".")[0]!);
      for (const mode of ["bm25", "hybrid"] as const) {
        for (const query of names.slice(0, 60)) {
          const request = { query, limit: 10, offset: 0, namespaces: [], tags: [], mode };
          const [a, b] = await Promise.all([on.search.search(request), off.search.search(request)]);
          expect(a.hits.map((h) => [h.record.id, h.score])).toEqual(b.hits.map((h) => [h.record.id, h.score]));
          expect([a.total, a.mode]).toEqual([b.total, mode]);
        }
      }
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });

  it("a seed file (metatools learn --export) is imported at start", async () => {
    const app = await startApp(execConfig());
    const dir = tempDir();
    try {
      const s = await session(app);
      await s.search(TASK);
      await s.run("exec:put", { key: "report", value: "# Q3" });
      await s.close();
      writeFileSync(join(dir, "learned.json"), JSON.stringify(await app.learner!.store.export(Date.now())));
    } finally {
      await app.close();
    }
    const seeded = await startApp(execConfig({ learn: { seed: "learned.json" } }), join(dir, "metatools.json"));
    try {
      const s = await session(seeded);
      expect((await s.search(SIMILAR))[0]).toBe("exec:put");
      await s.close();
    } finally {
      await seeded.close();
    }
  });

  describe("replicas sharing Redis", () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedis();
    }, 30_000);
    afterAll(() => redis?.stop());

    it("what one server learns, the other uses; the command exports it, forgets it and imports it back", async () => {
      const dir = tempDir();
      const config = execConfig({ store: { url: redis.url } });
      const [a, b] = await Promise.all([startApp(config, join(dir, "a.json")), startApp(config, join(dir, "b.json"))]);
      try {
        const onB = await session(b);
        const before = await onB.search(SIMILAR);
        expect(before[0]).not.toBe("exec:put");
        const onA = await session(a);
        await onA.search(TASK);
        await onA.run("exec:put", { key: "report", value: "# Q3" });
        await onA.close();
        expect((await onB.search(SIMILAR))[0]).toBe("exec:put");

        const cli = join(dir, "cli.json");
        writeFileSync(cli, JSON.stringify({ mcpServers: {}, metatools: { store: { url: redis.url } } }));
        const exported = await runCli(["learn", "--export", join(dir, "learned.json"), "--config", cli]);
        expect(exported.code, exported.stderr).toBe(0);
        expect(exported.stdout).toMatch(/^exported \d+ terms to /);
        const reset = await runCli(["learn", "--reset", "--config", cli]);
        expect(reset.code, reset.stderr).toBe(0);
        // Servers read the generation again within a second: asked until B ranks as before it learned (searching alone teaches nothing).
        expect(
          await eventually(
            () => onB.search(SIMILAR),
            (ranked) => JSON.stringify(ranked) === JSON.stringify(before),
            3000,
          ),
        ).toEqual(before);
        const imported = await runCli(["learn", "--import", join(dir, "learned.json"), "--config", cli]);
        expect(imported.code, imported.stderr).toBe(0);
        // As for the reset: B reads the new generation within a second.
        expect(
          await eventually(
            async () => (await onB.search(SIMILAR))[0],
            (top) => top === "exec:put",
            3000,
          ),
        ).toBe("exec:put");
        await onB.close();
        const doctor = await runCli(["doctor", "--json", "--config", cli]);
        expect(JSON.parse(doctor.stdout).learning).toEqual({ status: "on", terms: expect.any(Number), where: expect.stringMatching(/^redis:\/\//) });
        expect(JSON.parse(doctor.stdout).learning.terms).toBeGreaterThan(3);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });

  it("the command refuses learning it cannot reach (memory store, learn.persist false) and a file it did not make, saying why", async () => {
    const dir = tempDir();
    const memory = join(dir, "memory.json");
    writeFileSync(memory, JSON.stringify({ mcpServers: {}, metatools: { learn: { persist: false } } }));
    const refused = await runCli(["learn", "--reset", "--config", memory]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/learn\.persist is false.*redis:\/\/.*metatools.learn.seed/s);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ format: "something-else" }));
    const sqlite = join(dir, "sqlite.json");
    writeFileSync(sqlite, JSON.stringify({ mcpServers: {}, metatools: { store: { url: "redis://127.0.0.1:1" } } }));
    const wrong = await runCli(["learn", "--import", bad, "--config", sqlite]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/bad\.json: format: .*metatools learn --export/);
  });
});
