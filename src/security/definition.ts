/**
 * A tool definition's hash: what the lock file pins and the snapshot file
 * records beside each tool. The text hashed is the definition an agent sees,
 * as canonical JSON, so key order never changes it, and a pin written by an
 * earlier release stays valid (test/unit/security/lock-hash.test.ts).
 */
import * as crypto from "node:crypto";
import type { UpstreamTool } from "../model/tool.js";

/** SHA-256 in hex: crypto.hash (Node 20.12+; several times faster than createHash over 10,000 small texts), else createHash (Node 20.10, 20.11). */
function digest(text: string): string {
  return typeof crypto.hash === "function" ? crypto.hash("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}

/** What of a tool its hash covers: the definition an agent sees (no `group`, `tags` or `cache`, which metatools adds). */
export type Definition = Pick<UpstreamTool, "name" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations">;

export function definitionOf(tool: UpstreamTool): Definition {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return { name, title, description, inputSchema, outputSchema, annotations };
}

/** The definition an agent sees, hashed over canonical JSON (keys sorted), so key order never changes it. */
export function definitionHash(tool: UpstreamTool): string {
  return `sha256:${digest(canonical(definitionOf(tool)))}`;
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
