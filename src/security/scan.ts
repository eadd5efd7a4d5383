/**
 * Looks for tool poisoning in what a backend says about a tool: its name,
 * title, description and every string in its schemas. A tool description is
 * read by the agent as instructions, so text that tells the agent to ignore
 * its instructions, keep secrets from the user, read credentials or call
 * other tools, text hidden in invisible or bidirectional characters, and
 * descriptions too long to review are flagged. A flagged tool is
 * quarantined until a person approves it (see gate.ts).
 */
import type { UpstreamTool } from "../model/tool.js";

export interface Finding {
  rule: string;
  /** Where it was found (`description`, `inputSchema.properties.path.description`) and a short quote. */
  where: string;
  quote: string;
}

const RULES: { rule: string; pattern: RegExp }[] = [
  { rule: "overrides instructions", pattern: /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|other|system)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|guidelines)\b/i },
  { rule: "hides from the user", pattern: /\b(do not|don't|never)\b[^.\n]{0,30}\b(tell|inform|mention|reveal|show|notify)\b[^.\n]{0,20}\b(the )?user\b/i },
  { rule: "hidden instruction markup", pattern: /<\/?(important|system|instructions?|secret|hidden)>/i },
  { rule: "reads credentials", pattern: /(~\/\.ssh|\bid_(rsa|ed25519|ecdsa)\b|\.aws\/credentials|\.netrc\b|\.npmrc\b|\.pgpass\b|\/etc\/(passwd|shadow)\b)/i },
  { rule: "sends secrets", pattern: /\b(read|send|include|pass|upload|attach|forward)\b[^.\n]{0,40}(\.env\b|\bprivate[ _-]?keys?\b|\bapi[ _-]?keys?\b|\bpasswords?\b|\bcredentials\b|\bsecrets?\b)[^.\n]{0,40}\b(to|as|in|into|with)\b/i },
  { rule: "directs other tools", pattern: /\b(before|after|instead of)\b[^.\n]{0,20}\b(using|calling|running|invoking)\b[^.\n]{0,30}\b(this|any|other|the)\b[^.\n]{0,20}\btools?\b[^.\n]{0,40}\b(must|always|first|call|send|use)\b/i },
];

/** Bidirectional overrides and Unicode tag characters: they hide or reorder text a person reviewing the description does not see. */
const INVISIBLE = /[\u202A-\u202E\u2066-\u2069]|[\u{E0000}-\u{E007F}]/u;
/** Zero-width characters: one stray is common in pasted text; several can split words to slip past a reader or a filter. */
const ZERO_WIDTH = /[\u200B-\u200F\u2060-\u2064\uFEFF]/gu;

export function scanTool(tool: UpstreamTool, options: { maxDescriptionChars: number }): Finding[] {
  const findings: Finding[] = [];
  const texts: [string, string][] = [
    ["name", tool.name],
    ["title", tool.title ?? ""],
    ["description", tool.description ?? ""],
    ...schemaStrings(tool.inputSchema, "inputSchema"),
    ...schemaStrings(tool.outputSchema, "outputSchema"),
  ];
  for (const [where, text] of texts) {
    if (!text) continue;
    const hidden = INVISIBLE.exec(text);
    if (hidden) findings.push({ rule: "invisible characters", where, quote: `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} at ${hidden.index}` });
    const zeroWidth = text.match(ZERO_WIDTH)?.length ?? 0;
    if (zeroWidth >= 3) findings.push({ rule: "invisible characters", where, quote: `${zeroWidth} zero-width characters` });
    for (const { rule, pattern } of RULES) {
      const match = pattern.exec(text);
      if (match) findings.push({ rule, where, quote: match[0].slice(0, 80) });
    }
  }
  const length = (tool.description ?? "").length;
  if (length > options.maxDescriptionChars) findings.push({ rule: "very long description", where: "description", quote: `${length} characters (limit ${options.maxDescriptionChars})` });
  return findings;
}

/** Every string inside a schema (descriptions, titles, enum values, defaults), with its path. */
function schemaStrings(value: unknown, path: string, out: [string, string][] = []): [string, string][] {
  if (typeof value === "string") out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => schemaStrings(v, `${path}[${i}]`, out));
  else if (value && typeof value === "object") for (const [key, v] of Object.entries(value)) schemaStrings(v, `${path}.${key}`, out);
  return out;
}

export function describeFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.rule} in ${f.where} ("${f.quote}")`).join("; ");
}
