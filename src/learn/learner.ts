/**
 * Search that learns from use. Each session's recent searches are held in
 * memory (their analyzed terms, never their text unless the config asks);
 * what happens next teaches the store:
 *
 * - a successful run of a tool teaches the session's latest search (full
 *   weight) and the searches before it since the last run (half: they were
 *   attempts at the same task) that their terms lead to that tool;
 * - a failed run lowers the latest search's terms for that tool;
 * - a new search soon after one whose top hits learning had raised, with
 *   no run between and a word in common (the same need, asked again),
 *   lowers those hits for the first search's terms: they were shown and
 *   passed over.
 *
 * What a caller (principal) teaches ranks for that caller; for others only
 * once enough callers agree (shared.ts). Search asks `rank` for the tools a
 * query's terms lead to for its caller, to fuse that list with the others.
 */
import type { LearnConfig } from "../config/resolved.js";
import { createAnalyzer, type Analyzer } from "../text/analyze.js";
import type { Logger } from "../util/log.js";
import { LOCAL_PRINCIPAL } from "../security/principal.js";
import { errorMessage } from "../util/errors.js";
import { scoreQuery, type LearnSettings } from "./model.js";
import type { LearnedStore } from "./store.js";
import { namespaceOf } from "../model/tool.js";

/** A search this soon after another, with no run between, passes over the first one's raised hits. */
const REFINE_MS = 60_000;
/** The searches a session remembers until a run. */
const SEARCHES_KEPT = 3;
/** Sessions remembered at once; the least recent go first. */
const MAX_SESSIONS = 2000;
/** The most terms a query teaches or is scored by. */
const MAX_TERMS = 32;
/** Longer "words" (a pasted hash, a run of letters) are no vocabulary worth learning. */
const MAX_TERM_CHARS = 64;
/** Namespaces whose runs teach nothing: reading a stored output or a link is plumbing, not the task's tool. */
const PLUMBING = new Set(["metatools"]);

interface Search {
  terms: string[];
  text: string;
  /** The hits learning raised to the top of this search. */
  raised: string[];
  at: number;
}

export interface LearnedList {
  /** Tools with their agreement with the query (0–1), best first. */
  hits: { id: string; score: number }[];
}

export class Learner {
  private readonly analyzer: Analyzer = createAnalyzer(10_000);
  private readonly sessions = new Map<string, Search[]>();
  private readonly settings: LearnSettings;
  private warned = false;

  constructor(
    readonly store: LearnedStore,
    private readonly config: Pick<LearnConfig, "halfLifeMs" | "windowMs" | "maxEventsPerDay" | "keepQueries">,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
    /** Applied to a query before its terms are made or its text kept: a secret an agent pasted into a query is never stored. */
    private readonly redact: (text: string) => string = (text) => text,
  ) {
    this.settings = { halfLifeMs: config.halfLifeMs };
  }

  /** The analyzed terms of a query, as learning keeps them: of its text with known secrets redacted, so no secret becomes a term. */
  terms(query: string): string[] {
    return [...new Set(this.analyzer.analyzeQuery(this.redact(query)))].filter((term) => term.length <= MAX_TERM_CHARS).slice(0, MAX_TERMS);
  }

  /**
   * The tools the query's terms have led to for `principal` (the local user's unless said), best first; empty when nothing
   * was learned (or the store fails: search goes on without).
   */
  async rank(query: string, allowed: (id: string) => boolean, principal: string = LOCAL_PRINCIPAL): Promise<LearnedList> {
    const terms = this.terms(query);
    if (!terms.length) return { hits: [] };
    try {
      const now = this.now();
      const rows = await this.store.rows(terms, principal, now);
      if (!rows.size) return { hits: [] };
      return { hits: scoreQuery(rows, terms.length, now, this.settings, allowed) };
    } catch (error) {
      this.warnOnce(error);
      return { hits: [] };
    }
  }

  /** A search in `session` showed `raised` at its top because of what was learned. */
  async searched(session: string, principal: string, query: string, raised: readonly string[]): Promise<void> {
    const terms = this.terms(query);
    if (!terms.length) return;
    const now = this.now();
    const trail = this.trail(session, now);
    const previous = trail.at(-1);
    trail.push({ terms, text: this.redact(query), raised: [...raised], at: now });
    if (trail.length > SEARCHES_KEPT) trail.shift();
    // A reformulation (a shared word), not the next step of a plan: the first search's raised tools did not serve.
    const reformulated = previous !== undefined && previous.terms.some((term) => terms.includes(term));
    if (previous && reformulated && previous.raised.length && now - previous.at <= REFINE_MS) {
      await this.teach(principal, previous.terms, previous.raised, -0.5, now);
    }
  }

  /** A run of `tool` in `session` ended, well or not. */
  async ran(session: string, principal: string, tool: string, ok: boolean): Promise<void> {
    if (PLUMBING.has(namespaceOf(tool) ?? "")) return;
    const now = this.now();
    const trail = this.trail(session, now);
    const latest = trail.at(-1);
    if (!latest) return;
    if (!ok) {
      await this.teach(principal, latest.terms, [tool], -1, now);
      return;
    }
    this.sessions.set(session, []);
    await this.teach(principal, latest.terms, [tool], 1, now, latest.text);
    for (const earlier of trail.slice(0, -1)) await this.teach(principal, earlier.terms, [tool], 0.5, now);
  }

  /** The session's searches still within the window, the session moved to the back of the map (its most recent). */
  private trail(session: string, now: number): Search[] {
    const trail = (this.sessions.get(session) ?? []).filter((s) => now - s.at <= this.config.windowMs);
    this.sessions.delete(session);
    // Least recent first: sessions that ended (or went quiet past the window) leave from the front.
    for (const [id, searches] of this.sessions) {
      if (this.sessions.size < MAX_SESSIONS && searches.some((s) => now - s.at <= this.config.windowMs)) break;
      this.sessions.delete(id);
    }
    this.sessions.set(session, trail);
    return trail;
  }

  /** Sessions whose searches are held (for tests and diagnostics). */
  get heldSessions(): number {
    return this.sessions.size;
  }

  private async teach(principal: string, terms: readonly string[], tools: readonly string[], delta: number, now: number, text?: string): Promise<void> {
    try {
      if (!(await this.store.spend(principal, this.config.maxEventsPerDay, now))) return;
      for (const tool of tools) await this.store.add(terms, tool, delta, now, principal);
      if (text !== undefined && this.config.keepQueries) for (const tool of tools) await this.store.keepQuery(tool, text);
    } catch (error) {
      this.warnOnce(error);
    }
  }

  private warnOnce(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.logger?.warn(`search learning is paused: ${errorMessage(error)}; search ranks without it`);
  }
}
