/**
 * Where learned associations live: the key-value store (memory, kept in a
 * file per config by file-store.ts; or Redis shared by replicas; or
 * SQLite), keys per term, so a search reads only its own terms
 * and two replicas learning at once touch different keys unless they learn
 * the same word. Every key carries a generation: a reset starts a new one,
 * and the old keys expire on their own, on every replica at once.
 *
 * Each term has two kinds of key: a caller's own row (what it taught, which
 * ranks for it alone) and the shared row (every caller's evidence by
 * contributor, which counts for others once enough callers agree;
 * shared.ts). Both name the caller only by a hash of its principal and the
 * term, so no key or value links one caller's terms together.
 *
 * Terms are listed in 64 index keys (by hash) for export; a term missed
 * there by two replicas writing the same index key at once is still used by
 * search, only not exported. Within a process, writes to one key go one at
 * a time (KeyedSerial), so sessions learning at once lose no update.
 * The keys' layout is also read by merge.ts, which merges a learning file.
 */
import { createHash } from "node:crypto";
import { DEFAULTS } from "../config/defaults.js";
import { LOCAL_PRINCIPAL } from "../security/principal.js";
import { KeyedSerial, type KeyValue } from "../store/kv.js";
import { addEvidence, type LearnSettings, type TermRow } from "./model.js";
import { addShared, importShared, viewFor, type SharedRow } from "./shared.js";

/** Keys outlive any half-life that matters; decay, not expiry, retires evidence. */
const KEY_TTL_MS = 400 * 86_400_000;
const INDEX_BUCKETS = 64;
/** The most terms an index bucket lists. */
export const MAX_BUCKET_TERMS = 2000;
/** The most queries kept per tool when the config asks for them. */
export const MAX_QUERIES_PER_TOOL = 20;
/** How long a read generation is trusted: a reset on another replica takes effect within this. */
const GENERATION_MS = 1000;
const DAY_MS = 86_400_000;

export interface StoreSettings extends LearnSettings {
  /** Distinct callers that must teach a term for a tool before it counts for other callers. */
  shareAfterPrincipals?: number;
}

/** What `metatools learn --export` writes and `--import` reads. */
export interface LearnedFile {
  format: "metatools-learned";
  version: 1;
  exportedAt: string;
  terms: Record<string, TermRow>;
  queries?: Record<string, string[]>;
}

export class LearnedStore {
  private generation: { value: number; at: number } | undefined;
  private readonly serial = new KeyedSerial();
  private readonly shareAfter: number;

  constructor(
    private readonly kv: KeyValue,
    private readonly settings: StoreSettings,
  ) {
    this.shareAfter = settings.shareAfterPrincipals ?? DEFAULTS.learn.shareAfterPrincipals;
  }

  /** Each term's evidence as it ranks for `principal`: its own, and what enough callers agree on (shared.ts). */
  async rows(terms: readonly string[], principal: string, now: number): Promise<Map<string, TermRow>> {
    const gen = await this.gen();
    const [own, shared] = await Promise.all([
      Promise.all(terms.map((term) => this.kv.get<TermRow>(ownKey(gen, principal, term)))),
      Promise.all(terms.map((term) => this.kv.get<SharedRow>(sharedKey(gen, term)))),
    ]);
    const out = new Map<string, TermRow>();
    terms.forEach((term, i) => {
      const row = viewFor(own[i], shared[i], contributor(principal, term), this.shareAfter, now, this.settings);
      if (Object.keys(row).length) out.set(term, row);
    });
    return out;
  }

  /** Adds `delta` to `principal`'s evidence of each term for `tool`: in its own rows and, by contributor, in the shared ones. */
  async add(terms: readonly string[], tool: string, delta: number, now: number, principal: string): Promise<void> {
    const gen = await this.gen();
    const added: string[] = [];
    await Promise.all(
      terms.map(async (term) => {
        await this.update<TermRow>(ownKey(gen, principal, term), (row) => addEvidence(row, tool, delta, now, this.settings));
        await this.update<SharedRow>(sharedKey(gen, term), (row) => {
          if (!row) added.push(term);
          return addShared(row, contributor(principal, term), tool, delta, now, this.settings);
        });
      }),
    );
    if (added.length) await this.index(gen, added);
  }

  /** Keeps the query's text under the tool (only when the config asks). */
  async keepQuery(tool: string, query: string): Promise<void> {
    const gen = await this.gen();
    await this.update<string[]>(`${gen}:q:${tool}`, (kept = []) => [query, ...kept.filter((q) => q !== query)].slice(0, MAX_QUERIES_PER_TOOL));
    await this.index(gen, [], [tool]);
  }

  /** Counts one event for `principal` today; false once its daily allowance is spent. Atomic (KeyValue.increment): callers at once cannot all pass. */
  async spend(principal: string, allowance: number, now: number): Promise<boolean> {
    const used = await this.kv.increment(`cap:${hash(principal)}:${Math.floor(now / DAY_MS)}`, 2 * DAY_MS);
    return used <= allowance;
  }

  /** Where it is kept, for messages: the store's URL (password masked), or the learning file. */
  get where(): string {
    return this.kv.where;
  }

  /** The terms and the tools (with kept queries) the index lists, sorted. */
  async listed(): Promise<{ terms: string[]; tools: string[] }> {
    const gen = await this.gen();
    const buckets = await Promise.all(Array.from({ length: INDEX_BUCKETS }, (_, i) => this.kv.get<Bucket>(`${gen}:index:${i}`)));
    return { terms: [...new Set(buckets.flatMap((b) => b?.terms ?? []))].sort(), tools: [...new Set(buckets.flatMap((b) => b?.tools ?? []))].sort() };
  }

  /** A term's rows as kept (for `metatools learn --show`): `principal`'s own, the shared one, and `principal`'s name in it. */
  async raw(term: string, principal: string): Promise<{ own?: TermRow; shared?: SharedRow; me: string }> {
    const gen = await this.gen();
    const [own, shared] = await Promise.all([this.kv.get<TermRow>(ownKey(gen, principal, term)), this.kv.get<SharedRow>(sharedKey(gen, term))]);
    return { ...(own ? { own } : {}), ...(shared ? { shared } : {}), me: contributor(principal, term) };
  }

  /** What the local user's search uses (its own evidence, and what is shared), with the kept queries; the CLI runs as that user. */
  async export(now: number): Promise<LearnedFile> {
    const gen = await this.gen();
    const { terms, tools } = await this.listed();
    const rows = await this.rows(terms, LOCAL_PRINCIPAL, now);
    const file: LearnedFile = { format: "metatools-learned", version: 1, exportedAt: new Date(now).toISOString(), terms: Object.fromEntries(rows) };
    if (tools.length) {
      const kept = await Promise.all(tools.map((tool) => this.kv.get<string[]>(`${gen}:q:${tool}`)));
      file.queries = Object.fromEntries(tools.map((tool, i) => [tool, kept[i] ?? []] as const).filter(([, q]) => q.length));
    }
    return file;
  }

  /** Adds a file's evidence to what is here, as the operator's (counted for every caller); returns how many terms it had. */
  async import(file: LearnedFile, now: number): Promise<number> {
    const gen = await this.gen();
    const terms = Object.keys(file.terms);
    const added: string[] = [];
    for (const term of terms) {
      await this.update<SharedRow>(sharedKey(gen, term), (row) => {
        if (!row) added.push(term);
        return importShared(row, file.terms[term]!, now, this.settings);
      });
    }
    if (added.length) await this.index(gen, added);
    return terms.length;
  }

  /** How many terms were learned, as the index lists them. */
  async size(): Promise<{ terms: number }> {
    return { terms: (await this.listed()).terms.length };
  }

  /** Sets `name` in the current generation; false when it was already set (what happens once per generation). */
  async mark(name: string): Promise<boolean> {
    const gen = await this.gen();
    const key = `${gen}:mark:${name}`;
    if (await this.kv.get<boolean>(key)) return false;
    await this.kv.set(key, true, KEY_TTL_MS);
    return true;
  }

  /** Forgets everything: a new generation, read by every replica within a second; the old keys expire. */
  async reset(): Promise<void> {
    const gen = await this.gen(true);
    await this.kv.set("gen", gen + 1, KEY_TTL_MS);
    this.generation = { value: gen + 1, at: Date.now() };
  }

  private async gen(fresh = false): Promise<number> {
    if (!fresh && this.generation && Date.now() - this.generation.at < GENERATION_MS) return this.generation.value;
    const value = (await this.kv.get<number>("gen")) ?? 0;
    this.generation = { value, at: Date.now() };
    return value;
  }

  /** Reads, changes and writes one key (not when `change` returns the value it was given), one change at a time per key in this process. */
  private update<T>(key: string, change: (value: T | undefined) => T): Promise<void> {
    return this.serial.run(key, async () => {
      const current = await this.kv.get<T>(key);
      const next = change(current);
      if (next !== current) await this.kv.set(key, next, KEY_TTL_MS);
    });
  }

  private async index(gen: number, terms: readonly string[], tools: readonly string[] = []): Promise<void> {
    const byBucket = new Map<number, { terms: string[]; tools: string[] }>();
    const put = (name: string, kind: "terms" | "tools") => {
      const bucket = parseInt(hash(name).slice(0, 6), 16) % INDEX_BUCKETS;
      const entry = byBucket.get(bucket) ?? { terms: [], tools: [] };
      entry[kind].push(name);
      byBucket.set(bucket, entry);
    };
    for (const term of terms) put(term, "terms");
    for (const tool of tools) put(tool, "tools");
    await Promise.all(
      [...byBucket].map(([bucket, entry]) =>
        this.update<Bucket>(`${gen}:index:${bucket}`, (current) => {
          const terms = [...new Set([...(current?.terms ?? []), ...entry.terms])].slice(0, MAX_BUCKET_TERMS);
          const tools = [...new Set([...(current?.tools ?? []), ...entry.tools])].slice(0, MAX_BUCKET_TERMS);
          const same = current && terms.length === current.terms.length && tools.length === (current.tools ?? []).length;
          return same ? current : { terms, tools };
        }),
      ),
    );
  }
}

interface Bucket {
  terms: string[];
  tools?: string[];
}

/** A term's shared row. (`t:` held every caller's evidence as one row before callers were told apart; those keys are no longer read.) */
function sharedKey(gen: number, term: string): string {
  return `${gen}:s:${term}`;
}

/** A caller's own row for a term, under a hash of both: keys of one caller's terms have nothing in common. */
function ownKey(gen: number, principal: string, term: string): string {
  return `${gen}:o:${hash(`own\0${principal}\0${term}`)}`;
}

/** A caller's name in a term's shared row: distinct per caller within the row, unrelated across rows. */
function contributor(principal: string, term: string): string {
  return hash(`by\0${principal}\0${term}`).slice(0, 12);
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
