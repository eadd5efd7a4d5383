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

/**
 * Whether `tool`'s definition hash is `hash`, cheaply when it can be: the
 * definition serialised natively with each object's keys sorted is the
 * canonical text whenever no key looks like an array index (JavaScript puts
 * those first), so a match there is a match. Any miss is decided by the
 * canonical hash itself, so the shortcut can only save time, never admit a
 * definition the canonical hash would not.
 */
export function hasHash(tool: UpstreamTool, hash: string): boolean {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  const quick = JSON.stringify({ annotations, description, inputSchema, name, outputSchema, title }, sortedKeys);
  if (`sha256:${digest(quick)}` === hash) return true;
  return definitionHash(tool) === hash;
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((key, i) => i === 0 || keys[i - 1]! < key)) return value;
  return Object.fromEntries(keys.sort().map((key) => [key, (value as Record<string, unknown>)[key]]));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
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
