/**
 * Pins of an earlier release, through the real registry, gate and lock
 * file: one without terms gets the terms its tool is listed on, and holds
 * it from then on when they change; one made under a renamed tool's own
 * spelling moves to the id it is served as, or holds a changed definition;
 * and neither move is written over a pin someone else wrote meanwhile.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CatalogIndex } from "../../../src/catalog/match.js";
import type { UpstreamTool } from "../../../src/model/tool.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolGate } from "../../../src/security/gate.js";
import { definitionHash, LockFile } from "../../../src/security/lock.js";
import { tempDir } from "../../helpers/temp-dir.js";

const lookup: UpstreamTool = { name: "lookup", description: "Look up a key.", inputSchema: { type: "object", properties: {} } };
const spaced: UpstreamTool = { name: "look up", description: "Look up a key.", inputSchema: { type: "object", properties: {} } };

/** A lock file as an earlier release wrote it: pins without terms, by the backends' own names. */
function world(pins: Record<string, UpstreamTool>) {
  const file = join(tempDir(), "metatools.lock.json");
  const tools = Object.fromEntries(
    Object.entries(pins).map(([id, tool]) => [id, { hash: definitionHash(tool), by: "approved", at: "2026-01-01T00:00:00.000Z" }]),
  );
  writeFileSync(file, JSON.stringify({ version: 1, tools }));
  const lock = new LockFile(file, { writeDelayMs: 60_000 });
  const gate = new ToolGate(lock, { scan: true, maxDescriptionChars: 4000, exempt: new Set() });
  return { file, lock, registry: new ToolRegistry(new CatalogIndex([]), undefined, gate) };
}
const onDisk = (file: string) => JSON.parse(readFileSync(file, "utf8")).tools as Record<string, { hash: string; by: string; terms?: object }>;

describe("pins of an earlier release", () => {
  it("get the terms their tool is listed on, and hold it when the terms change from then on", () => {
    const { file, lock, registry } = world({ "kv:lookup": lookup });
    registry.setNamespace("kv", [{ ...lookup }], "kv-server", true);
    expect(registry.get("kv:lookup")).toBeDefined();
    lock.save();
    expect(onDisk(file)["kv:lookup"]).toMatchObject({ by: "approved", terms: { server: "kv-server", readOnly: false, destructive: true } });
    registry.setNamespace("kv", [{ ...lookup }], "memory-server", true);
    expect(registry.get("kv:lookup")).toBeUndefined();
    expect(registry.quarantineOf("kv:lookup")?.reason).toContain("the server name its backend reports");
  });

  it("made under a renamed tool's own spelling, move to the id it is served as; a definition changed since is held", () => {
    const same = world({ "kv:look up": spaced });
    same.registry.setNamespace("kv", [{ ...spaced }], "kv-server", true);
    expect(same.registry.get("kv:look_up")?.upstreamName).toBe("look up");
    same.lock.save();
    expect(onDisk(same.file)["kv:look_up"]).toMatchObject({ hash: definitionHash(spaced), by: "approved", terms: { server: "kv-server" } });

    const changed = world({ "kv:look up": spaced });
    changed.registry.setNamespace("kv", [{ ...spaced, description: "Look up a key, then delete it." }], "kv-server", true);
    expect(changed.registry.get("kv:look_up")).toBeUndefined();
    expect(changed.registry.quarantineOf("kv:look_up")).toMatchObject({ kind: "changed", reason: expect.stringContaining("its definition changed") });
  });

  it("are not moved over a pin someone else wrote meanwhile", () => {
    const { file, lock, registry } = world({ "kv:lookup": lookup });
    registry.setNamespace("kv", [{ ...lookup }], "kv-server", true);
    // Before this process writes, a person approves another definition in the file.
    const other = { ...lookup, description: "Look up a key, loudly." };
    const written = onDisk(file);
    written["kv:lookup"] = { hash: definitionHash(other), by: "approved", at: "2026-02-01T00:00:00.000Z" } as never;
    writeFileSync(file, JSON.stringify({ version: 1, tools: written }));
    lock.save();
    expect(onDisk(file)["kv:lookup"]).toEqual({ hash: definitionHash(other), by: "approved", at: "2026-02-01T00:00:00.000Z" });
  });
});
