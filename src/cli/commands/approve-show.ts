/**
 * `metatools approve --show ID`: one quarantined tool for the person who
 * decides on it: the definition pinned before and the one held now, what
 * changed between them (description by line and word, each parameter, each
 * annotation), and what the scanner found. Everything a backend wrote goes
 * through the output sink (output.ts), which makes it printable; `--json`
 * gives the review as data (src/security/review.ts).
 */
import type { Metatools } from "../../app.js";
import type { DefinitionChange } from "../../security/definition-diff.js";
import { reviewOf, type Review } from "../../security/review.js";
import { termChangeWords, type Terms } from "../../security/terms.js";
import { describeFindings } from "../../security/scan.js";
import { diffLines, diffWords, type DiffPart } from "../../util/text-diff.js";
import { selfInvocation, shellWord } from "../command-line.js";
import { stderr, stdout } from "../output.js";
import type { Style } from "../style.js";

/** Values quoted in one line of the changes are cut here: the whole definitions are printed above them. */
const VALUE_CHARS = 300;

/** How much of the hash the approve line carries: enough that no other definition of the tool will share it. */
const HASH_SHOWN = 16;

/** The hex digits of a hash (`sha256:…`) that an approve line carries; `digits` more to compare with what a person typed. */
export function shortHash(hash: string, digits = HASH_SHOWN): string {
  return hash
    .replace(/^sha256:/i, "")
    .slice(0, digits)
    .toLowerCase();
}

export function showQuarantined(app: Metatools, id: string, json: boolean | undefined): number {
  const held = app.registry.quarantineOf(id);
  if (!held) {
    const now = app.registry.quarantined().map((q) => q.id);
    stderr().write(`metatools approve: not quarantined: ${id} (${now.length ? `quarantined now: ${now.join(", ")}` : "nothing is quarantined"})\n`);
    return 1;
  }
  const review = reviewOf(held, app.gate.lock, app.gate.definitions);
  if (json) stdout().json(review);
  else {
    const out = stdout();
    out.write(renderReview(review, out.style, app.config.security.scan));
  }
  return 0;
}

/** The review as text for a terminal: the two definitions, then what changed, the scanner's findings, and the command that approves. */
export function renderReview(review: Review, style: Style, scanned: boolean): string {
  const lines: string[] = [];
  const { pinned, current } = review;
  lines.push(`${style.bold(review.id)}: ${review.kind === "changed" ? "changed since it was pinned" : "flagged by the scanner"}`, `  ${review.reason}`);
  if (current.fromSnapshot) lines.push(style.warn("  known only from the tool snapshot: its backend has not listed it now, so it cannot be approved yet"));
  lines.push("");
  if (pinned) {
    lines.push(
      style.bold(`Pinned definition`) + style.dim(` (${pinned.hash}, ${pinned.by === "approved" ? "approved" : "first seen"} ${pinned.at.slice(0, 10)})`),
    );
    lines.push(...(pinned.definition ? block(pinned.definition) : [`  ${style.warn(pinned.missing ?? "not kept")}`]), "");
  } else lines.push(style.bold("Pinned definition: none") + style.dim(" (never pinned: it was held when first listed)"), "");
  lines.push(style.bold("New definition") + style.dim(` (${current.hash})`), ...block(current.definition), "");
  lines.push(style.bold("Served on"), ...termLines(current.terms), "");
  const sameDefinition = pinned?.hash === current.hash;
  if (review.changes && !sameDefinition) {
    lines.push(style.bold("What changed"));
    lines.push(...(review.changes.length ? review.changes.flatMap((c) => changeLines(c, style)) : ["  nothing the definition shows (only its hash differs)"]));
  } else if (pinned && !sameDefinition)
    lines.push(style.bold("What changed: ") + "unknown, as the pinned definition was not kept; read the new definition whole");
  else if (sameDefinition) lines.push(style.bold("What changed: ") + "not the definition; the terms it is served on");
  if (review.termChanges?.length) lines.push(...review.termChanges.map((c) => `  ${style.bad(termChangeWords(c))}`));
  lines.push("");
  if (review.findings.length) {
    lines.push(style.bold(style.bad("The scanner found")));
    for (const finding of review.findings) lines.push(`  - ${describeFindings([finding])}`);
  } else lines.push(style.bold("The scanner found ") + (scanned ? "nothing" : "nothing: scanning is off (metatools.security.scan is false)"));
  // The hash ties the approval to what was read here: if the backend changes the tool again meanwhile, approve refuses.
  lines.push("", `If you trust the new definition: ${selfInvocation()} approve ${shellWord(review.id)} --hash ${shortHash(review.seal)}`);
  return `${lines.join("\n")}\n`;
}

/** The terms a tool would be served on, a line each. */
function termLines(terms: Terms): string[] {
  return [
    `  server name: ${terms.server === undefined ? "none reported" : JSON.stringify(terms.server)}`,
    `  read-only: ${terms.readOnly ? "yes" : "no"}; may change or delete data: ${terms.destructive ? "yes" : "no"}`,
    `  catalog entries: ${terms.catalog?.join(", ") ?? "none"}`,
    `  search hint: ${terms.hint ?? "none"}`,
  ];
}

/** A value as indented JSON, two spaces in. */
function block(value: unknown): string[] {
  return JSON.stringify(value, null, 2)
    .split("\n")
    .map((line) => `  ${line}`);
}

/** One change, as the lines a person reads. */
function changeLines(change: DefinitionChange, style: Style): string[] {
  const label = labelOf(change);
  if (change.kind === "added" && change.aspect === undefined)
    return [`  ${label}: ${style.ok(`added${change.required === undefined ? "" : change.required ? " (required)" : " (optional)"}`)} ${value(change.after)}`];
  if (change.kind === "removed" && change.aspect === undefined)
    return [
      `  ${label}: ${style.bad(`removed${change.required === undefined ? "" : change.required ? " (was required)" : " (was optional)"}`)} ${value(change.before)}`,
    ];
  const what = change.aspect ? `${label} ${change.aspect}` : label;
  if (change.aspect === "required") return [`  ${label}: ${change.after ? "now required (was optional)" : "now optional (was required)"}`];
  if (typeof change.before === "string" && typeof change.after === "string" && (change.before + change.after).length > 60)
    return [`  ${what}:`, ...textDiff(change.before, change.after, style)];
  return [`  ${what}: ${style.bad(value(change.before))} → ${style.ok(value(change.after))}`];
}

function labelOf(change: DefinitionChange): string {
  if (change.part === "annotations") return `annotation ${change.path}`;
  if (change.part === "inputSchema" || change.part === "outputSchema") {
    const side = change.part === "inputSchema" ? "input" : "output";
    return change.path ? `${side} parameter "${change.path}"` : `${side} schema`;
  }
  return change.part;
}

function value(v: unknown): string {
  if (v === undefined) return "(none)";
  const text = JSON.stringify(v);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}… (in full above)` : text;
}

/**
 * Old and new text line by line (`-` and `+`), and where a run of lines was
 * replaced, the same run word by word: `[-old words-]{+new words+}`, so the
 * words that changed stand out without colour too.
 */
export function textDiff(before: string, after: string, style: Style): string[] {
  const out: string[] = [];
  const parts = diffLines(before, after);
  const linesOf = (part: DiffPart) => part.text.replace(/\n$/, "").split("\n");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.op === "=") out.push(...linesOf(part).map((line) => style.dim(`      ${line}`)));
    else out.push(...linesOf(part).map((line) => (part.op === "-" ? style.bad(`    - ${line}`) : style.ok(`    + ${line}`))));
    const next = parts[i + 1];
    if (part.op === "-" && next?.op === "+") {
      out.push(...linesOf(next).map((line) => style.ok(`    + ${line}`)));
      out.push(`    words: ${wordDiff(part.text, next.text, style)}`);
      i++;
    }
  }
  return out;
}

function wordDiff(before: string, after: string, style: Style): string {
  return diffWords(before.replace(/\s+/g, " ").trim(), after.replace(/\s+/g, " ").trim())
    .map((part) => (part.op === "=" ? part.text : part.op === "-" ? style.bad(`[-${part.text}-]`) : style.ok(`{+${part.text}+}`)))
    .join("");
}
