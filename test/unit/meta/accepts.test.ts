/**
 * The meta-tools' quick check (MetaTool.accepts, the zod schema each JSON
 * Schema is made from) lets a call through without compiling a validator.
 * It must never let through what the JSON Schema refuses: for each of a
 * spread of well-formed and malformed calls, accepted implies valid under
 * ajv; and the common calls are accepted, or the quick check saves nothing.
 */
import { describe, expect, it } from "vitest";
import { SchemaValidator } from "../../../src/exec/validator.js";
import { META_TOOLS } from "../../../src/meta/index.js";

const CALLS: Record<string, Record<string, unknown>[]> = {
  search_tools: [
    { query: "read a file" },
    { query: "" },
    { query: "x", limit: 5, offset: 10, namespace: "files", tags: ["io"], mode: "hybrid" },
    { query: "x", namespace: ["a", "b"] },
    { query: 3 },
    {},
    { query: "x", limit: 0 },
    { query: "x", limit: 2.5 },
    { query: "x", limit: 10_000 },
    { query: "x", offset: -1 },
    { query: "x", mode: "fuzzy" },
    { query: "x", namespace: "n".repeat(10_000) },
    { query: "x", namespace: Array.from({ length: 21 }, () => "a") },
    { query: "x", extra: true },
    { query: "x", tags: "io" },
  ],
  describe_tool: [
    { tool_id: "files:read" },
    { tool_id: "files:read", detail: "full" },
    { tool_id: "files:read", detail: "everything" },
    { tool_id: 7 },
    { tool_id: "x".repeat(100_000) },
    {},
    { tool_id: "files:read", nope: 1 },
  ],
  run_tool: [
    { tool_id: "files:read", args: { path: "a" } },
    { tool_id: "files:read" },
    { tool_id: "files:read", args: "{}" },
    { tool_id: "files:read", args: [] },
    { tool_id: "files:read", args: {}, cache: "bypass" },
    { tool_id: "files:read", args: {}, cache: "sometimes" },
    { args: {} },
    { tool_id: "files:read", args: {}, typo: 1 },
  ],
};

describe("the meta-tools' quick check", () => {
  const validator = new SchemaValidator();
  for (const tool of META_TOOLS) {
    it(`${tool.name}: accepts only what its JSON Schema accepts, and accepts the everyday calls`, () => {
      const calls = CALLS[tool.name]!;
      expect(calls.length).toBeGreaterThan(5);
      for (const args of calls) {
        const valid = validator.validate(tool.inputSchema, args).ok === true;
        if (tool.accepts(args)) expect(valid, JSON.stringify(args).slice(0, 200)).toBe(true);
        // The quick check may send a call on to the JSON Schema, but not the ones most agents send.
        else if (valid) expect(args === calls[0], JSON.stringify(args).slice(0, 200)).toBe(false);
      }
      expect(tool.accepts(calls[0]!)).toBe(true);
    });
  }
});
