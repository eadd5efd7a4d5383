import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BackendSpec } from "../../../src/config/resolved.js";
import { ToolSnapshot } from "../../../src/backends/snapshot.js";

const spec = (namespace: string): BackendSpec =>
  ({ kind: "stdio", namespace, command: "node", args: [], env: {}, connectTimeoutMs: 1000, callTimeoutMs: 1000 }) as BackendSpec;
const tools = (prefix: string, n = 3) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}_${i}`, inputSchema: { type: "object" as const } }));
const writes = (file: string) => statSync(file).mtimeMs;

describe("the tool snapshot stays bounded", () => {
  afterEach(() => vi.useRealTimers());

  it("drops the entries of servers no longer in the config", () => {
    const dir = mkdtempSync(join(tmpdir(), "snap-"));
    const file = join(dir, "snapshots", "a.json");
    const first = new ToolSnapshot(file);
    first.set(spec("kept"), tools("k"), undefined);
    first.set(spec("gone"), tools("g"), undefined);
    first.flush();
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).backends).sort()).toEqual(["gone", "kept"]);

    const next = new ToolSnapshot(file);
    next.retain(["kept"]);
    next.flush();
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).backends)).toEqual(["kept"]);
    expect(next.get(spec("kept"))?.tools.map((t) => t.name)).toEqual(["k_0", "k_1", "k_2"]);
  });

  it("writes a burst of list changes once, and a backend renaming its tools at most every 10 s", () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), "snap-"));
    const file = join(dir, "snapshots", "a.json");
    const snapshot = new ToolSnapshot(file);
    snapshot.set(spec("churn"), tools("v0"), undefined);
    vi.advanceTimersByTime(250);
    expect(existsSync(file)).toBe(true);
    const firstWrite = readFileSync(file, "utf8");

    // Renames every second for 9 s: nothing written before 10 s have passed since the last write.
    for (let i = 1; i <= 9; i++) {
      snapshot.set(spec("churn"), tools(`v${i}`), undefined);
      vi.advanceTimersByTime(1000);
    }
    expect(readFileSync(file, "utf8")).toBe(firstWrite);
    vi.advanceTimersByTime(1000);
    expect(JSON.parse(readFileSync(file, "utf8")).backends.churn.tools[0].name).toBe("v9_0");
  });

  it("removes the snapshots of configs not started for a month, and keeps a used one however old its content", () => {
    const dir = mkdtempSync(join(tmpdir(), "snap-"));
    const folder = join(dir, "snapshots");
    mkdirSync(folder);
    const old = new Date(Date.now() - 40 * 24 * 3600_000);
    const stale = join(folder, "stale.json");
    writeFileSync(stale, JSON.stringify({ version: 1, backends: {} }));
    utimesSync(stale, old, old);
    const used = join(folder, "used.json");
    new ToolSnapshot(used).flush();
    const usedSnapshot = new ToolSnapshot(used);
    usedSnapshot.set(spec("a"), tools("a"), undefined);
    usedSnapshot.flush();
    utimesSync(used, old, old);

    // A start that reads the used one (and changes nothing) keeps it from pruning; writing another prunes the stale one.
    expect(new ToolSnapshot(used).get(spec("a"))).toBeDefined();
    expect(Date.now() - writes(used)).toBeLessThan(24 * 3600_000);
    const other = new ToolSnapshot(join(folder, "other.json"));
    other.set(spec("b"), tools("b"), undefined);
    other.flush();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(used)).toBe(true);
  });
});
