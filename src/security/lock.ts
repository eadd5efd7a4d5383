/**
 * metatools.lock.json: each tool's definition hash, pinned when first seen
 * clean or when a person approves it. A definition that changes later (a
 * "rug pull": the same tool, new instructions) no longer matches its pin
 * and is quarantined until approved again.
 */
import * as crypto from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import type { UpstreamTool } from "../model/tool.js";
import { ConfigError } from "../util/errors.js";
import { writeFileAtomic } from "../util/files.js";

/** SHA-256 in hex: crypto.hash (Node 20.12+; several times faster than createHash over 10,000 small texts), else createHash (Node 20.10, 20.11). */
function digest(text: string): string {
  return typeof crypto.hash === "function" ? crypto.hash("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}

export interface Pin {
  hash: string;
  /** "first-use": pinned automatically, clean when first seen; "approved": a person approved this definition. */
  by: "first-use" | "approved";
  at: string;
}

/** The definition an agent sees, hashed over canonical JSON (keys sorted), so key order never changes it. */
export function definitionHash(tool: UpstreamTool): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return `sha256:${digest(canonical({ name, title, description, inputSchema, outputSchema, annotations }))}`;
}

/** Whether `tool`'s definition hash is `hash` (a record read from a file anyone with access to the cache may have edited). */
export function hasHash(tool: UpstreamTool, hash: string): boolean {
  return definitionHash(tool) === hash;
}

/**
 * JSON with every object's keys sorted (by UTF-16 code units) and undefined
 * members left out, built in one pass: about twice as fast as
 * JSON.stringify with a sorting replacer, which matters when a snapshot's
 * 10,000 tools are checked before the first search.
 */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) text += (i ? "," : "") + canonical(value[i]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = "{";
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonical(member)}`;
  }
  return `${text}}`;
}

export class LockFile {
  private pins = new Map<string, Pin>();
  private mtimeMs = -1;

  constructor(readonly file: string) {
    this.reload();
  }

  /** Re-reads the file if it changed on disk (an approval from the CLI); true when it did. */
  reload(): boolean {
    const mtimeMs = existsSync(this.file) ? statSync(this.file).mtimeMs : 0;
    if (mtimeMs === this.mtimeMs) return false;
    this.mtimeMs = mtimeMs;
    if (!mtimeMs) {
      this.pins = new Map();
      return true;
    }
    let parsed: { tools?: Record<string, Pin> };
    try {
      parsed = JSON.parse(readFileSync(this.file, "utf8")) as { tools?: Record<string, Pin> };
    } catch (error) {
      throw new ConfigError(this.file, "", `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.pins = new Map(Object.entries(parsed.tools ?? {}));
    return true;
  }

  /** Tools pinned. */
  get size(): number {
    return this.pins.size;
  }

  get(id: string): Pin | undefined {
    return this.pins.get(id);
  }

  /** Pins in memory; `save()` writes them (once for a whole tool list, not once per tool). */
  pin(id: string, hash: string, by: Pin["by"]): void {
    this.pins.set(id, { hash, by, at: new Date().toISOString() });
  }

  save(): void {
    const tools = Object.fromEntries([...this.pins.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
    const body = `${JSON.stringify({ note: "Tool definitions metatools has pinned. A tool whose definition changes is quarantined until `metatools approve` pins the new one.", version: 1, tools }, null, 2)}\n`;
    writeFileAtomic(this.file, body);
    this.mtimeMs = statSync(this.file).mtimeMs;
  }
}
