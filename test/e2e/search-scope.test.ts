/**
 * The scope a search hint suggests narrows the most: the namespace with the
 * most matches, not the top hit's (which may hold one). Through a real
 * client against the real server, over two catalog-only tool lists.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, tempDir, type Session } from "../helpers/harness.js";

function toolsFile(server: string, tools: [name: string, description: string][]): string {
  const file = join(tempDir(), `${server}.jsonl`);
  const lines = tools.map(([name, description]) => JSON.stringify({ id: name, server, name, description }));
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

let session: Session;

beforeAll(async () => {
  session = await openSession(
    {
      mcpServers: {
        // One tool that names the query exactly: the top hit.
        tiny: { type: "catalog", tools: toolsFile("tiny", [["export_invoice", "Export an invoice."]]) },
        // Six that match it less well: most of the matches.
        billing: {
          type: "catalog",
          tools: toolsFile(
            "billing",
            ["create", "void", "refund", "list", "send", "archive"].map((verb) => [
              `${verb}_document`,
              `${verb} a billing document such as an invoice or a receipt`,
            ]),
          ),
        },
        // As many matches each for "ledger": the top hit is zeta's.
        alpha: {
          type: "catalog",
          tools: toolsFile("alpha", [
            ["post_entry", "Post an entry to a ledger."],
            ["close_period", "Close a ledger period."],
          ]),
        },
        zeta: {
          type: "catalog",
          tools: toolsFile("zeta", [
            ["ledger", "Ledger."],
            ["audit_trail", "The audit trail of a ledger."],
          ]),
        },
      },
      metatools: { code: { enabled: false }, search: { embedder: false } },
    },
    { builtinCatalog: false },
  );
});

afterAll(() => session?.close());

describe("the scope hint", () => {
  it("names the namespace with the most matches, with its count", async () => {
    const body = await session.call("search_tools", { query: "export invoice", limit: 2 });
    expect(body.hits[0].id).toBe("tiny:export_invoice");
    expect(body.hits.map((h: { id: string }) => h.id.split(":")[0])).toContain("billing");
    expect(body.by_namespace).toEqual([
      { namespace: "billing", count: 6 },
      { namespace: "tiny", count: 1 },
    ]);
    expect(body.hint).toContain('Scope to namespace "billing" (6 matches)');
    expect(body.hint).not.toContain('namespace "tiny"');
    expect(body.next).toEqual({ tool: "search_tools", arguments: { query: "export invoice", limit: 2, namespace: "billing" } });
    const scoped = await session.call(body.next.tool, body.next.arguments);
    expect(scoped.total).toBe(6);
  });

  it("among namespaces with as many matches, names the top hit's", async () => {
    const body = await session.call("search_tools", { query: "ledger", limit: 3 });
    expect(body.hits[0].id).toBe("zeta:ledger");
    expect(body.by_namespace).toEqual([
      { namespace: "alpha", count: 2 },
      { namespace: "zeta", count: 2 },
    ]);
    expect(body.next).toEqual({ tool: "search_tools", arguments: { query: "ledger", limit: 3, namespace: "zeta" } });
  });
});
