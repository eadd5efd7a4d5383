/**
 * A static backend that loads tool descriptions from a `tools.jsonl` file
 * (the retrieval-dataset format: `{id, server?, name, title?, description, inputSchema?, category?, _meta?}`
 * per line). Its tools can be searched and described, never run: it serves
 * `eval`, scale tests, and catalogs of tools that live elsewhere.
 */
import { readFile } from "node:fs/promises";
import type { CatalogBackendSpec } from "../config/resolved.js";
import type { JsonSchema, UpstreamTool } from "../model/tool.js";
import { ConfigError } from "../util/errors.js";
import { TRANSPORT_KINDS } from "../model/transport-kinds.js";
import { BackendError } from "./errors.js";
import { searchHint } from "../registry/about.js";
import type { Backend, BackendInfo, ToolCallResult } from "./types.js";

export class CatalogOnlyBackend implements Backend {
  readonly kind = "catalog";
  readonly runnable = TRANSPORT_KINDS.catalog.runnable;
  private tools: UpstreamTool[] = [];

  constructor(private readonly spec: CatalogBackendSpec) {}

  get namespace(): string {
    return this.spec.namespace;
  }

  onEvent(): void {}

  async connect(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.spec.toolsFile, "utf8");
    } catch (error) {
      throw new BackendError("connect_failed", `${this.namespace}: cannot read ${this.spec.toolsFile}: ${(error as Error).message}`);
    }
    this.tools = parseToolsJsonl(text, this.spec.toolsFile);
  }

  info(): BackendInfo {
    return { name: `catalog:${this.spec.toolsFile}` };
  }

  async listTools(): Promise<UpstreamTool[]> {
    return this.tools;
  }

  async callTool(name: string): Promise<ToolCallResult> {
    throw new BackendError("not_runnable", `${this.namespace}:${name} comes from a catalog-only tool list and cannot be run`);
  }

  async close(): Promise<void> {}
}

/** Parses a tools.jsonl text; a bad line is an error naming the file and line. */
export function parseToolsJsonl(text: string, file: string): UpstreamTool[] {
  const tools: UpstreamTool[] = [];
  const seen = new Set<string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`${file}:${i + 1}`, "", `not valid JSON: ${(error as Error).message}`);
    }
    const id = typeof row.id === "string" && row.id ? row.id : typeof row.name === "string" ? row.name : "";
    if (!id) throw new ConfigError(`${file}:${i + 1}`, "id", "each line needs a string `id` (or `name`)");
    if (seen.has(id)) continue;
    seen.add(id);
    const schema = row.inputSchema;
    tools.push({
      name: id,
      title: typeof row.title === "string" ? row.title : typeof row.name === "string" && row.name !== id ? row.name : undefined,
      description: typeof row.description === "string" ? row.description : "",
      inputSchema: schema && typeof schema === "object" ? (schema as JsonSchema) : undefined,
      group: typeof row.server === "string" ? row.server : undefined,
      tags: typeof row.category === "string" && row.category ? [row.category] : undefined,
      ...searchHint(row._meta && typeof row._meta === "object" ? (row._meta as Record<string, unknown>) : undefined),
    });
  }
  return tools;
}
