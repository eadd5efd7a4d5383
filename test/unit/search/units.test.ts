/**
 * Units (src/search/units.ts) and what servers say about themselves
 * (src/registry/about.ts): a namespace's words lean search toward its
 * tools among tools that match; with one unit they change nothing; the
 * text taken from a server is plain and bounded.
 */
import { describe, expect, it } from "vitest";
import { CatalogIndex } from "../../../src/catalog/match.js";
import { ABOUT_MAX, aboutText, HINT_MAX, searchHint } from "../../../src/registry/about.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { SearchEngine } from "../../../src/search/engine.js";

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" as const } });

function engine(namespaces: Record<string, { about?: string; tools: ReturnType<typeof tool>[] }>) {
  const registry = new ToolRegistry(new CatalogIndex([]));
  const search = new SearchEngine(registry);
  for (const [namespace, { about, tools }] of Object.entries(namespaces)) registry.setNamespace(namespace, tools, undefined, true, about);
  return async (query: string) =>
    (await search.search({ query, mode: "bm25", limit: 10, offset: 0, namespaces: [], tags: [] })).hits.map((h) => [h.record.id, h.score] as const);
}

const PAGES = [tool("fetch_page", "Return a page by its id."), tool("list_pages", "List the pages in a space.")];

describe("units", () => {
  it("lean toward the namespace whose own words the request uses, among tools that match", async () => {
    const search = engine({ a: { tools: PAGES }, b: { about: "Runbooks for incidents and onboarding checklists.", tools: PAGES } });
    expect((await search("list the incident runbook pages"))[0]![0]).toBe("b:list_pages");
    // Without the words, the same tools tie and the first namespace by name comes first.
    const plain = engine({ a: { tools: PAGES }, b: { tools: PAGES } });
    expect((await plain("list the incident runbook pages"))[0]![0]).toBe("a:list_pages");
  });

  it("do not add tools that match nothing, nor drown a tool the request names", async () => {
    const search = engine({
      mail: { tools: [tool("send_email", "Send an email message to a recipient.")] },
      campaigns: {
        about: "Email newsletters, email campaigns and email subscribers.",
        tools: [tool("send_campaign", "Send a campaign."), tool("stats", "Open rates.")],
      },
    });
    const hits = await search("send an email message");
    expect(hits[0]![0]).toBe("mail:send_email");
    expect(hits.map(([id]) => id)).not.toContain("campaigns:stats");
  });

  it("change nothing with one namespace: its words about itself rank every tool alike", async () => {
    const tools = [tool("fetch_page", "Return a page by its id."), tool("list_pages", "List the pages in a space."), tool("find", "Look for text in pages.")];
    const said = engine({ wiki: { about: "Team wiki: pages, runbooks and onboarding guides.", tools } });
    const silent = engine({ wiki: { tools } });
    for (const query of ["find a page", "list the runbook pages", "onboarding"]) expect(await said(query)).toEqual(await silent(query));
  });
});

describe("what a server says about itself", () => {
  it("is plain text: title, description and instructions, control characters and escape sequences gone", () => {
    const text = aboutText({ title: "Team\u001b[2J Wiki", description: "Pages\r\nand guides", instructions: "Read\u0007 runbooks\u009b" });
    expect(text).toBe("Team [2J Wiki Pages and guides Read runbooks");
    expect(aboutText(undefined)).toBe("");
  });

  it("is bounded: a flood of instructions is cut at a word near ABOUT_MAX", () => {
    const text = aboutText({ instructions: "runbook ".repeat(100_000) });
    expect(text.length).toBeLessThanOrEqual(ABOUT_MAX);
    expect(text.length).toBeGreaterThan(ABOUT_MAX - 10);
    expect(text.endsWith("runbook")).toBe(true);
  });

  it("takes a tool's search hint only as a string, plain and bounded", () => {
    expect(searchHint({ "anthropic/searchHint": "postmortem\u001b[31m  template\n" })).toEqual({ hints: "postmortem [31m template" });
    expect(searchHint({ "anthropic/searchHint": ["a", "b"] })).toEqual({});
    expect(searchHint({ "anthropic/searchHint": "   " })).toEqual({});
    expect(searchHint(undefined)).toEqual({});
    expect(searchHint({ "anthropic/searchHint": "x".repeat(10_000) }).hints).toHaveLength(HINT_MAX);
  });
});
