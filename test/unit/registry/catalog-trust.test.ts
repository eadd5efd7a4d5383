/**
 * A catalog entry's read-only and destructive words (src/registry/record.ts):
 * toward safety always; the other way only when something vouches for the
 * entry (its written_for is the tool now, a full id in a named namespace,
 * or the operator named the server), never on a backend's claim alone.
 */
import { describe, expect, it } from "vitest";
import type { LoadedEntry } from "../../../src/catalog/load.js";
import type { UpstreamTool } from "../../../src/model/tool.js";
import { buildRecord } from "../../../src/registry/record.js";
import { definitionHash } from "../../../src/security/definition.js";

const tool: UpstreamTool = { name: "read_graph", description: "Reads the whole graph.", inputSchema: { type: "object", properties: {} } };
const entry = (fields: Partial<LoadedEntry>): LoadedEntry => ({ match: "read_graph", file: "/catalog/server-memory.yaml", ...fields });
const now = definitionHash(tool).slice(0, 7 + 16);

describe("what a catalog entry may loosen", () => {
  it.each<[string, Partial<LoadedEntry>, boolean, boolean | undefined]>([
    ["matched on the server name the backend reports", { server: "memory-server", read_only: true }, false, undefined],
    ["the same, the operator naming the server", { server: "memory-server", read_only: true }, true, true],
    ["written for this very definition", { server: "memory-server", read_only: true, written_for: now }, false, true],
    ["written for another definition", { server: "memory-server", read_only: true, written_for: "sha256:0123456789abcdef" }, false, undefined],
    ["a name in any namespace", { read_only: true }, false, undefined],
    ["a full id in the operator's namespace", { match: "mem:read_graph", read_only: true }, false, true],
    ["an id glob over every namespace", { match: "*:read_graph", read_only: true }, false, undefined],
  ])("read_only: true, %s", (_case, fields, named, applied) => {
    const record = buildRecord("mem", tool, [entry(fields)], true, named);
    expect(record.annotations.readOnlyHint).toBe(applied);
    expect(record.catalogUnvouched).toEqual(applied ? undefined : ["read_only: true"]);
  });

  it("takes any entry's word toward safety, and says what it left out", () => {
    const guarded = buildRecord(
      "mem",
      { ...tool, annotations: { readOnlyHint: true, destructiveHint: false } },
      [entry({ server: "memory-server", read_only: false, destructive: true })],
      true,
    );
    expect(guarded.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const loosened = buildRecord("mem", tool, [entry({ server: "memory-server", destructive: false, summary: "Read the graph." })], true);
    expect(loosened.annotations.destructiveHint).toBeUndefined();
    expect(loosened.catalogUnvouched).toEqual(["destructive: false"]);
    // The rest of the entry still documents the tool.
    expect(loosened.summary).toBe("Read the graph.");
  });
});
