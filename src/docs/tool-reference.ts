/**
 * docs/reference/tools.md, generated from the tool definitions themselves:
 * the three meta-tools an agent sees, and the built-in tools it reaches
 * through run_tool (with the one-line summary and the notes the shipped
 * catalog adds). Never edited by hand.
 */
import type { JsonSchema, ToolAnnotations } from "../model/tool.js";
import { cell, typeOf } from "../util/schema-words.js";

export interface DocumentedTool {
  id: string;
  title?: string;
  /** The catalog's one line, when it has one beside the description. */
  summary?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  notes?: string;
}

export function toolReference(meta: readonly DocumentedTool[], builtins: readonly DocumentedTool[]): string {
  const lines = [
    "# Tool reference",
    "",
    "<!-- Generated from the tool definitions by `npm run generate`; a test fails when it is stale. Do not edit by hand. -->",
    "",
    "## The three tools an agent sees",
    "",
    "These are metatools' whole `tools/list`. Every reply is one JSON object; [responses.md](../responses.md) describes its fields, guidance and errors.",
    ...meta.flatMap((t) => section(t, 3)),
    "",
    "## Built-in tools",
    "",
    "Searched, described and run like any backend's tools (`run_tool({tool_id, args})`). The `code` tools work over the project root ([code.md](../code.md)); `metatools:read_output` reads results kept under a handle ([executor.md](../executor.md)).",
    ...builtins.flatMap((t) => section(t, 3)),
  ];
  return `${lines.join("\n")}\n`;
}

function section(tool: DocumentedTool, level: number): string[] {
  const out = ["", `${"#".repeat(level)} \`${tool.id}\``, ""];
  const hints = annotationWords(tool.annotations);
  if (tool.title || hints) out.push(`*${[tool.title, hints].filter(Boolean).join(" · ")}*`, "");
  if (tool.summary && !tool.description.startsWith(tool.summary)) out.push(`**${tool.summary}**`, "");
  out.push(tool.description, "");
  out.push(parameters(tool.inputSchema));
  if (tool.notes) out.push("", `Notes: ${tool.notes.trim().replace(/\n+/g, " ")}`);
  return out;
}

function annotationWords(a: ToolAnnotations): string {
  return [
    a.readOnlyHint ? "read-only" : "",
    a.destructiveHint ? "destructive" : "",
    a.idempotentHint ? "idempotent" : "",
    a.openWorldHint === false ? "closed world" : a.openWorldHint ? "open world" : "",
  ]
    .filter(Boolean)
    .join(", ");
}

function parameters(schema: JsonSchema): string {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  if (!Object.keys(props).length) return "No parameters.";
  const rows = Object.entries(props).map(
    ([name, p]) => `| \`${name}\`${required.has(name) ? " **(required)**" : ""} | ${cell(typeOf(p))} | ${cell(String(p.description ?? ""))} |`,
  );
  return ["| parameter | type | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}
