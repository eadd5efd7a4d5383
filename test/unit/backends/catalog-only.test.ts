/**
 * The tools.jsonl format (src/backends/catalog-only.ts): a line's title and
 * the search hint in its `_meta` come through as a server's would.
 */
import { describe, expect, it } from "vitest";
import { parseToolsJsonl } from "../../../src/backends/catalog-only.js";

describe("tools.jsonl", () => {
  it("reads a title and a search hint, and keeps the older spellings", () => {
    const text = [
      JSON.stringify({ id: "wiki:find", title: "Find text", description: "Look for text.", _meta: { "anthropic/searchHint": "postmortem template" } }),
      JSON.stringify({ id: "api::Get Info", name: "Get Info", server: "api", description: "Info." }),
      JSON.stringify({ id: "odd", description: "No hint.", _meta: { "anthropic/searchHint": 42 } }),
    ].join("\n");
    const [find, info, odd] = parseToolsJsonl(text, "tools.jsonl");
    expect(find).toMatchObject({ name: "wiki:find", title: "Find text", hints: "postmortem template" });
    expect(info).toMatchObject({ name: "api::Get Info", title: "Get Info", group: "api" });
    expect(info!.hints).toBeUndefined();
    expect(odd!.hints).toBeUndefined();
  });
});
