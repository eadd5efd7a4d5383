/**
 * Where learned associations live: the key-value store (memory, or Redis
 * shared by replicas), one key per term, so a search reads only its own
 * terms and two replicas learning at once touch different keys unless they
 * learn the same word. Every key carries a generation: a reset starts a new
 * one, and the old keys expire on their own, on every replica at once.
 *
 * Terms are listed in 64 index keys (by hash) for export; a term missed
 * there by two replicas writing the same index key at once is still used by
 * search, only not exported.
 */
import { createHash } from "node:crypto";
import type { KeyValue } from "../store/kv.js";
import { addEvidence, mergeRows, type LearnSettings, type TermRow } from "./model.js";

/** Keys outlive any half-life that matters; decay, not expiry, retires evidence. */
const KEY_TTL_MS = 400 * 86_400_000;
const INDEX_BUCKETS = 64;
/** The most terms an index bucket lists. */
const MAX_BUCKET_TERMS = 2000;
/** The most queries kept per tool when the config asks for them. */
const MAX_QUERIES_PER_TOOL = 20;
/** How long a read generation is trusted: a reset on another replica takes effect within this. */
const GENERATION_MS = 1000;

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

  constructor(
    private readonly kv: KeyValue,
    private readonly settings: LearnSettings,
  ) {}

  async rows(terms: readonly string[]): Promise<Map<string, TermRow>> {
    const gen = await this.gen();
    const rows = await Promise.all(terms.map((term) => this.kv.get<TermRow>(termKey(gen, term))));
    const out = new Map<string, TermRow>();
    terms.forEach((term, i) => {
      const row = rows[i];
      if (row && Object.keys(row).length) out.set(term, row);
    });
    return out;
  }

  /** Adds `delta` to the evidence of each term for `tool`. */
  async add(terms: readonly string[], tool: string, delta: number, now: number): Promise<void> {
    const gen = await this.gen();
    const added: string[] = [];
    await Promise.all(
      terms.map(async (term) => {
        const key = termKey(gen, term);
        const row = await this.kv.get<TermRow>(key);
        if (!row) added.push(term);
        await this.kv.set(key, addEvidence(row, tool, delta, now, this.settings), KEY_TTL_MS);
      }),
    );
    if (added.length) await this.index(gen, added);
  }

  /** Keeps the query's text under the tool (only when the config asks). */
  async keepQuery(tool: string, query: string): Promise<void> {
    const gen = await this.gen();
    const key = `${gen}:q:${tool}`;
    const kept = (await this.kv.get<string[]>(key)) ?? [];
    await this.kv.set(key, [query, ...kept.filter((q) => q !== query)].slice(0, MAX_QUERIES_PER_TOOL), KEY_TTL_MS);
    await this.index(gen, [], [tool]);
  }

  /** Counts one event for `principal` today; false once its daily allowance is spent. */
  async spend(principal: string, allowance: number, now: number): Promise<boolean> {
    const key = `cap:${hash(principal)}:${Math.floor(now / 86_400_000)}`;
    const used = (await this.kv.get<number>(key)) ?? 0;
    if (used >= allowance) return false;
    await this.kv.set(key, used + 1, 2 * 86_400_000);
    return true;
  }

  async export(now: number): Promise<LearnedFile> {
    const gen = await this.gen();
    const buckets = await Promise.all(Array.from({ length: INDEX_BUCKETS }, (_, i) => this.kv.get<Bucket>(`${gen}:index:${i}`)));
    const terms = [...new Set(buckets.flatMap((b) => b?.terms ?? []))].sort();
    const tools = [...new Set(buckets.flatMap((b) => b?.tools ?? []))].sort();
    const rows = await this.rows(terms);
    const file: LearnedFile = { format: "metatools-learned", version: 1, exportedAt: new Date(now).toISOString(), terms: Object.fromEntries(rows) };
    if (tools.length) {
      const kept = await Promise.all(tools.map((tool) => this.kv.get<string[]>(`${gen}:q:${tool}`)));
      file.queries = Object.fromEntries(tools.map((tool, i) => [tool, kept[i] ?? []] as const).filter(([, q]) => q.length));
    }
    return file;
  }

  /** Adds a file's evidence to what is here; returns how many terms it had. */
  async import(file: LearnedFile, now: number): Promise<number> {
    const gen = await this.gen();
    const terms = Object.keys(file.terms);
    const added: string[] = [];
    for (const term of terms) {
      const key = termKey(gen, term);
      const row = await this.kv.get<TermRow>(key);
      if (!row) added.push(term);
      await this.kv.set(key, mergeRows(row, file.terms[term]!, now, this.settings), KEY_TTL_MS);
    }
    if (added.length) await this.index(gen, added);
    return terms.length;
  }

  /** How many terms were learned, as the index lists them. */
  async size(): Promise<{ terms: number }> {
    const gen = await this.gen();
    const buckets = await Promise.all(Array.from({ length: INDEX_BUCKETS }, (_, i) => this.kv.get<Bucket>(`${gen}:index:${i}`)));
    return { terms: buckets.reduce((n, b) => n + (b?.terms.length ?? 0), 0) };
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
      [...byBucket].map(async ([bucket, entry]) => {
        const key = `${gen}:index:${bucket}`;
        const current = (await this.kv.get<Bucket>(key)) ?? { terms: [], tools: [] };
        const next = {
          terms: [...new Set([...current.terms, ...entry.terms])].slice(0, MAX_BUCKET_TERMS),
          tools: [...new Set([...(current.tools ?? []), ...entry.tools])].slice(0, MAX_BUCKET_TERMS),
        };
        if (next.terms.length !== current.terms.length || next.tools.length !== (current.tools ?? []).length) await this.kv.set(key, next, KEY_TTL_MS);
      }),
    );
  }
}

interface Bucket {
  terms: string[];
  tools?: string[];
}

function termKey(gen: number, term: string): string {
  return `${gen}:t:${term}`;
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
