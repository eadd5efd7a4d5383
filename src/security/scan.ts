/**
 * Looks for tool poisoning in everything a backend tells the agent about a
 * tool: its name, title, description, search hint, annotations, and every string and
 * every key of its schemas (a property's name is read as much as its
 * description). A tool description is read by the agent as instructions, so
 * text that tells the agent to ignore its instructions, keep secrets from
 * the user, read credentials or call other tools, text hidden in invisible
 * or bidirectional characters, and descriptions too long to review are
 * flagged. The rules read each string as the agent does, after text.ts has
 * undone invisible characters, look-alike letters and identifier spelling.
 * A flagged tool is quarantined until a person approves it (see gate.ts).
 */
import type { UpstreamTool } from "../model/tool.js";
import { hiddenCharacters, identifierWords, normalize, printable, smuggledText } from "./text.js";

export interface Finding {
  rule: string;
  /** Where it was found (`description`, `inputSchema.properties.path.description`) and a short quote. */
  where: string;
  quote: string;
}

const RULES: { rule: string; pattern: RegExp }[] = [
  {
    rule: "overrides instructions",
    pattern:
      /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|other|system)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|guidelines)\b/i,
  },
  { rule: "hides from the user", pattern: /\b(do not|don't|never)\b[^.\n]{0,30}\b(tell|inform|mention|reveal|show|notify)\b[^.\n]{0,20}\b(the )?user\b/i },
  { rule: "hidden instruction markup", pattern: /<\/?(important|system|instructions?|secret|hidden)>/i },
  { rule: "reads credentials", pattern: /(~\/\.ssh|\bid_(rsa|ed25519|ecdsa)\b|\.aws\/credentials|\.netrc\b|\.npmrc\b|\.pgpass\b|\/etc\/(passwd|shadow)\b)/i },
  {
    rule: "sends secrets",
    pattern:
      /\b(read|send|include|pass|upload|attach|forward)\b[^.\n]{0,40}(\.env\b|\bprivate[ _-]?keys?\b|\bapi[ _-]?keys?\b|\bpasswords?\b|\bcredentials\b|\bsecrets?\b)[^.\n]{0,40}\b(to|as|in|into|with)\b/i,
  },
  {
    rule: "directs other tools",
    pattern:
      /\b(before|after|instead of)\b[^.\n]{0,20}\b(using|calling|running|invoking)\b[^.\n]{0,30}\b(this|any|other|the)\b[^.\n]{0,20}\btools?\b[^.\n]{0,40}\b(must|always|first|call|send|use)\b/i,
  },
];

/**
 * The rules that read a result (text a tool returned, shown to the agent as
 * data). Only text addressed to the agent counts: orders to drop its
 * instructions, to keep things from the user, instruction markup, and
 * orders to read or send credential files. Mere mentions of credential
 * files, secrets or other tools are ordinary in file contents and listings,
 * and results are read as prose only (`ignore_previous_instructions` in code
 * is an identifier, not an order).
 */
const RESULT_RULES: { rule: string; pattern: RegExp }[] = [
  RULES[0]!,
  RULES[1]!,
  RULES[2]!,
  {
    rule: "asks for credentials",
    pattern:
      /\b(read|cat|open|send|upload|include|attach|copy|paste|print|post|exfiltrate)\b[^.\n]{0,40}(~\/\.ssh|\bid_(rsa|ed25519|ecdsa)\b|\.aws\/credentials|\.netrc\b|\.pgpass\b|\/etc\/shadow\b)/i,
  },
];

/** How much of a result is scanned: its first 64 KiB of text (characters), so a huge result costs no more than that. */
export const RESULT_SCAN_CHARS = 64 * 1024;

export function scanTool(tool: UpstreamTool, options: { maxDescriptionChars: number }): Finding[] {
  const texts: [string, string][] = [
    ["name", tool.name],
    ["title", tool.title ?? ""],
    ["description", tool.description ?? ""],
    // Never shown, but they move the tool in rankings: read like the rest.
    ["search hint", tool.hints ?? ""],
    ...shownStrings(tool.annotations, "annotations"),
    ...shownStrings(tool.inputSchema, "inputSchema"),
    ...shownStrings(tool.outputSchema, "outputSchema"),
  ];
  const findings = texts.flatMap(([where, text]) => scanText(where, text, RULES, true));
  const length = (tool.description ?? "").length;
  if (length > options.maxDescriptionChars)
    findings.push({ rule: "very long description", where: "description", quote: `${length} characters (limit ${options.maxDescriptionChars})` });
  return findings;
}

/**
 * Looks for injected instructions in what a tool returned: `parts` are its
 * texts with where each came from (`result`, `structured.items[0].body`),
 * read in order up to `maxChars` characters in all. Each rule is reported
 * once, where it first matched.
 */
export function scanResult(parts: readonly (readonly [string, string])[], maxChars = RESULT_SCAN_CHARS): Finding[] {
  const findings: Finding[] = [];
  let left = maxChars;
  for (const [where, text] of parts) {
    if (left <= 0) break;
    const read = text.length > left ? text.slice(0, left) : text;
    left -= read.length;
    for (const finding of scanText(where, read, RESULT_RULES, false)) if (!findings.some((f) => f.rule === finding.rule)) findings.push(finding);
  }
  return findings;
}

/** The findings in one string: hidden characters, then each rule over the text as read (and, for definitions, as an identifier). */
function scanText(where: string, text: string, rules: typeof RULES, asIdentifier: boolean): Finding[] {
  if (!text) return [];
  const findings: Finding[] = hiddenCharacters(text).map((quote) => ({ rule: "invisible characters", where, quote }));
  const normal = normalize(text);
  // Read as prose first, then as an identifier ("id_rsa" is a credential file, "ignore_previous_instructions" a sentence), then what variation selectors smuggle.
  const readings = [...new Set([normal, asIdentifier ? identifierWords(normal) : "", normalize(smuggledText(text))])].filter(Boolean);
  for (const { rule, pattern } of rules) {
    const match = readings.map((reading) => pattern.exec(reading)).find(Boolean);
    if (match) findings.push({ rule, where, quote: printable(match[0]) + (text.includes(match[0]) ? "" : " (as read after normalising)") });
  }
  return findings;
}

/**
 * Every string an agent is shown inside a schema or the annotations
 * (descriptions, titles, enum values, defaults) and every key (property
 * names), with its path; a key's path ends in ` (key)`. Keys in paths are
 * quoted printably and shortened, as the path is itself shown in findings.
 */
function shownStrings(value: unknown, path: string, out: [string, string][] = []): [string, string][] {
  if (typeof value === "string") out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => shownStrings(v, `${path}[${i}]`, out));
  else if (value && typeof value === "object")
    for (const [key, v] of Object.entries(value)) {
      const keyPath = `${path}.${printable(key, 40)}`;
      out.push([`${keyPath} (key)`, key]);
      shownStrings(v, keyPath, out);
    }
  return out;
}

export function describeFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.rule} in ${f.where} ("${f.quote}")`).join("; ");
}
