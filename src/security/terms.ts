/**
 * The terms a tool is served on: what metatools applies to a backend's
 * definition before anyone sees it, and what decides who sees it and
 * whether a call of it asks first. They are pinned beside the definition's
 * hash (lock.ts), so a change in any of them is held for review like a
 * changed description: a backend that restarts under another server name
 * (and so gets another catalog entry, and other read-only words), a new
 * tool that takes a served id another tool had, or a search hint added
 * after the pin.
 *
 * Small and plain on purpose: the lock file is the operator's, read in
 * diffs. A backend's own words never go in it, only a hash of its hint.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";

export interface Terms {
  /** The server name the backend reported (its `serverInfo.name`), or the one the operator configured for it (`serverName`); absent when neither. */
  server?: string;
  /** Read-only as finally applied, catalog included: a read-only profile shows it, and `destructive: ask` does not ask for it. */
  readOnly: boolean;
  /** May change or delete data, as finally applied (MCP's reading: destructive unless it says otherwise or is read-only). */
  destructive: boolean;
  /** The catalog entries that apply to it, as `<file name>#<match>`, least specific first. */
  catalog?: string[];
  /** A hash of the search hint the backend offers for it (`_meta["anthropic/searchHint"]`): it moves the tool in rankings. */
  hint?: string;
}

/** The terms of one tool, in a fixed key order (so the lock file's JSON of two equal terms is the same text). */
export function termsOf(parts: {
  server?: string;
  readOnly: boolean;
  destructive: boolean;
  catalog: readonly { file: string; match: string }[];
  hint?: string;
}): Terms {
  // Made for every tool listed (10,000 at a start): plain assignments, no spreads.
  const terms: Terms =
    parts.server !== undefined
      ? { server: parts.server, readOnly: parts.readOnly, destructive: parts.destructive }
      : { readOnly: parts.readOnly, destructive: parts.destructive };
  if (parts.catalog.length) terms.catalog = parts.catalog.map((entry) => `${basename(entry.file)}#${entry.match}`);
  if (parts.hint) terms.hint = hintHash(parts.hint);
  return terms;
}

/** The hint's words stay out of the operator's file; 128 bits of their hash, so no two hints a backend could make share one. */
export function hintHash(hint: string): string {
  return `sha256:${createHash("sha256").update(hint).digest("hex").slice(0, 32)}`;
}

export function sameTerms(a: Terms | undefined, b: Terms | undefined): boolean {
  return key(a) === key(b);
}

/** The terms as one line of text, for comparing and for the hash an approval is given for. */
export function termsKey(terms: Terms | undefined): string {
  return key(terms);
}

/**
 * What an approval is given for: the definition's hash and the terms together, so an approval made after a review
 * pins nothing if either changed since (`metatools approve --hash`).
 */
export function sealOf(hash: string, terms: Terms | undefined): string {
  return `sha256:${createHash("sha256")
    .update(`${hash}\0${key(terms)}`)
    .digest("hex")}`;
}

function key(terms: Terms | undefined): string {
  if (!terms) return "";
  // The server name is the backend's: quoted as JSON, so no name can spell another set of terms.
  return `${terms.server === undefined ? "-" : JSON.stringify(terms.server)}|${terms.readOnly ? 1 : 0}${terms.destructive ? 1 : 0}|${terms.catalog?.join("\n") ?? ""}|${terms.hint ?? ""}`;
}

/** What changed from `before` to `after`, one phrase per term, for the person who reviews it. */
export function termChanges(before: Terms, after: Terms): TermChange[] {
  const changes: TermChange[] = [];
  const push = (term: TermChange["term"], was: unknown, now: unknown) => {
    if (JSON.stringify(was) !== JSON.stringify(now)) changes.push({ term, before: was, after: now });
  };
  push("server", before.server, after.server);
  push("readOnly", before.readOnly, after.readOnly);
  push("destructive", before.destructive, after.destructive);
  push("catalog", before.catalog ?? [], after.catalog ?? []);
  push("hint", before.hint, after.hint);
  return changes;
}

export interface TermChange {
  term: "server" | "readOnly" | "destructive" | "catalog" | "hint";
  before: unknown;
  after: unknown;
}

/** A change in words: `server name "notes" → "memory-server"`, `read-only no → yes`. */
export function termChangeWords(change: TermChange): string {
  const yes = (v: unknown) => (v ? "yes" : "no");
  const name = (v: unknown) => (v === undefined ? "none" : JSON.stringify(v));
  switch (change.term) {
    case "server":
      return `server name ${name(change.before)} → ${name(change.after)}`;
    case "readOnly":
      return `read-only ${yes(change.before)} → ${yes(change.after)}`;
    case "destructive":
      return `may change or delete data ${yes(change.before)} → ${yes(change.after)}`;
    case "catalog": {
      const list = (v: unknown) => ((v as string[]).length ? (v as string[]).join(", ") : "none");
      return `catalog entries ${list(change.before)} → ${list(change.after)}`;
    }
    case "hint":
      return `search hint ${change.before === undefined ? "none" : "one"} → ${change.after === undefined ? "none" : change.before === undefined ? "one" : "another"}`;
  }
}
