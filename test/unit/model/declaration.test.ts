import ts from "typescript";
import { describe, expect, it } from "vitest";
import { declaration } from "../../../src/model/declaration.js";

/** The syntax errors TypeScript finds in `source` as a declaration file. */
function syntaxErrors(source: string): string[] {
  const file = ts.createSourceFile("tool.d.ts", `declare ${source}`, ts.ScriptTarget.ES2022, true);
  const diagnostics = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("a tool as a TypeScript declaration", () => {
  it("has one line per parameter, required ones first and without ?, enums and defaults, and the result's shape", () => {
    const text = declaration({
      id: "files:search_files",
      name: "search_files",
      summary: "Find files whose names match a pattern.",
      inputSchema: {
        type: "object",
        properties: {
          limit: { type: "integer", default: 50, description: "At most this many." },
          path: { type: "string", description: "Where to look." },
          sort: { enum: ["name", "size"] },
          exclude: { type: "array", items: { type: "string" } },
          "dry-run": { type: ["boolean", "null"] },
        },
        required: ["path"],
      },
      outputSchema: {
        type: "object",
        properties: {
          matches: { type: "array", items: { type: "object", properties: { path: { type: "string" }, size: { type: "number" } }, required: ["path"] } },
        },
        required: ["matches"],
      },
    });
    expect(text.split("\n")).toEqual([
      "/** Find files whose names match a pattern. */",
      "function search_files(args: {",
      "  path: string; // Where to look.",
      "  limit?: number; // default 50; At most this many.",
      '  sort?: "name" | "size";',
      "  exclude?: string[];",
      '  "dry-run"?: boolean | null;',
      '}): Promise<{ matches: { path: string; size?: number }[] }>; // tools.call("files:search_files", args)',
    ]);
    expect(syntaxErrors(text)).toEqual([]);
  });

  it("says unknown for a result without an output schema, and takes no arguments when there are none", () => {
    const text = declaration({ id: "everything:echo", name: "echo", summary: "Echo.", inputSchema: { type: "object" } });
    expect(text).toBe('/** Echo. */\nfunction echo(args?: {}): Promise<unknown>; // tools.call("everything:echo", args)');
    expect(syntaxErrors(text)).toEqual([]);
  });

  it("keeps a schema's words from ending the comment or the line, and writes an odd name as a valid function", () => {
    const text = declaration({
      id: "x:odd-name.v2",
      name: "odd-name.v2",
      summary: "Ends */ here\nand goes on \u001b[2K\u202e",
      inputSchema: { type: "object", properties: { q: { type: "string", description: "a */ b\nc" }, "2nd": { const: "x*/y" } } },
    });
    const lines = text.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe("/** Ends * / here and goes on */");
    expect(lines[1]).toBe("function odd_name_v2(args: {");
    expect(lines[2]).toBe("  q?: string; // a * / b c");
    expect(syntaxErrors(text)).toEqual([]);
    expect([...text].filter((c) => (c < " " && c !== "\n") || c === "\u202e")).toEqual([]);
  });

  it("writes deep or long types as their plain kind, and lists a bounded number of parameters", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 8; i++) deep = { type: "object", properties: { inner: deep } };
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`p${i}`, { enum: Array.from({ length: 40 }, (_, j) => `value-${j}`) }]));
    const text = declaration({ id: "a:b", name: "b", summary: "B.", inputSchema: { type: "object", properties: { deep, ...many } } });
    const lines = text.split("\n");
    expect(lines[2]).toBe("  deep?: { inner?: { inner?: object } };");
    expect(lines[3]).toBe("  p0?: /* one of 40 values */ string;");
    expect(lines).toHaveLength(2 + 60 + 2);
    expect(lines.at(-2)).toContain("…21 more parameters");
    expect(syntaxErrors(text)).toEqual([]);
  });
});
