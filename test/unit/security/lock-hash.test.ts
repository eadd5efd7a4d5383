import { describe, expect, it } from "vitest";
import type { UpstreamTool } from "../../../src/model/tool.js";
import { definitionHash, hasHash } from "../../../src/security/lock.js";

// Pins in lock files people already keep were made with these exact texts: a faster serializer must give the same hashes.
const tool = {
  name: "list_dir",
  description: 'Lists a folder: "quoted", ünïcode, \u2028',
  title: undefined,
  inputSchema: {
    type: "object",
    required: ["path"],
    properties: {
      path: { type: "string", default: null },
      "10": { type: "number" },
      "2": { enum: [1, "a", null, true, { z: 1, a: [] }] },
      Zeta: {},
      alpha: { description: "é" },
    },
  },
  annotations: { readOnlyHint: true, destructiveHint: false },
} as unknown as UpstreamTool;

describe("definition hashes", () => {
  it("stay what earlier releases pinned", () => {
    expect(definitionHash(tool)).toBe("sha256:758cfafca95307ddd584cd15bc706e493dd9dcb0c9d6e115cf013ece6c821f5e");
    expect(definitionHash({ name: "x", inputSchema: { type: "object" } } as UpstreamTool)).toBe(
      "sha256:d8121ff95a6c1f2b2c915f12cdc9206c342941521789b9f4a8f80eece7d8d62b",
    );
  });

  it("do not depend on key order, and change with any word", () => {
    const reordered = { annotations: tool.annotations, inputSchema: tool.inputSchema, description: tool.description, name: tool.name } as UpstreamTool;
    expect(definitionHash(reordered)).toBe(definitionHash(tool));
    expect(hasHash(reordered, definitionHash(tool))).toBe(true);
    expect(hasHash({ ...tool, description: `${tool.description} ` }, definitionHash(tool))).toBe(false);
  });
});
