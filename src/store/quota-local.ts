/**
 * The quota store of one process (memory, SQLite): the values live in the
 * key-value store, the accounting here, and puts run one at a time, so the
 * rules hold exactly within the process. On SQLite the accounting does not
 * survive a restart: outputs made before it stay readable until they
 * expire, uncounted (docs/deploy.md says so).
 */
import { KeyedSerial, type KeyValue } from "./kv.js";
import { MAX_REMEMBERED, measure, ownedKey, plan, refusal, type Lookup, type QuotaLimits, type QuotaStore, type Stored } from "./quota.js";

interface Entry {
  owner: string;
  id: string;
  bytes: number;
  expires: number;
}

interface Owner {
  /** Live values, oldest first (insertion order). */
  live: Map<string, Entry>;
  used: number;
  /** Evicted ids with the time they would have expired, oldest eviction first. */
  evicted: Map<string, number>;
}

export class LocalQuotaStore implements QuotaStore {
  /** Every live value, oldest first: expired ones are taken from the front. */
  private readonly all = new Map<string, Entry>();
  private readonly owners = new Map<string, Owner>();
  private total = 0;
  private readonly turns = new KeyedSerial();

  constructor(
    private readonly kv: KeyValue,
    readonly limits: QuotaLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get kind() {
    return this.kv.kind;
  }

  get where() {
    return this.kv.where;
  }

  /** Bytes accounted to all owners' live values. */
  get totalBytes(): number {
    return this.total;
  }

  put(owner: string, id: string, value: unknown, ttlMs: number): Promise<Stored> {
    return this.turns.run("put", async () => {
      this.expire();
      const { bytes } = measure(owner, id, value);
      const mine = this.owner(owner);
      // A value put again under its id replaces the one before (task records are written as they change): the plan counts
      // it as gone, and it is forgotten only once the new one is written, so a refusal or a failure leaves it as it was.
      const before = mine.live.get(id);
      const decided = plan(
        [...mine.live.values()].filter((e) => e !== before).map((e) => [e.id, e.bytes]),
        mine.used - (before?.bytes ?? 0),
        this.total - (before?.bytes ?? 0),
        bytes,
        this.limits,
      );
      if ("refused" in decided) throw refusal(this.where, decided.refused, bytes, mine.used, this.limits);
      // Written first: a store that fails leaves everything as it was.
      await this.kv.set(ownedKey(owner, id), value, ttlMs);
      if (before) this.forget(before);
      for (const evicted of decided.evict) {
        const entry = mine.live.get(evicted)!;
        this.forget(entry);
        mine.evicted.set(evicted, entry.expires);
        // A value that cannot be deleted now still expires with its TTL; it is no longer counted.
        await this.kv.delete(ownedKey(owner, evicted)).catch(() => {});
      }
      for (const old of mine.evicted.keys()) {
        if (mine.evicted.size <= MAX_REMEMBERED) break;
        mine.evicted.delete(old);
      }
      const entry = { owner, id, bytes, expires: this.now() + ttlMs };
      mine.live.set(id, entry);
      mine.used += bytes;
      this.all.set(ownedKey(owner, id), entry);
      this.total += bytes;
      return { bytes, room: this.limits.ownerBytes - bytes, used: mine.used };
    });
  }

  async get<T>(owner: string, id: string): Promise<Lookup<T>> {
    const value = await this.kv.get<T>(ownedKey(owner, id));
    if (value !== undefined) return { kind: "found", value };
    const now = this.now();
    const mine = this.owners.get(owner);
    if ((mine?.evicted.get(id) ?? 0) > now) return { kind: "evicted" };
    if ((mine?.live.get(id)?.expires ?? 0) > now) return { kind: "dropped" };
    return { kind: "missing" };
  }

  private owner(owner: string): Owner {
    let found = this.owners.get(owner);
    if (!found) this.owners.set(owner, (found = { live: new Map(), used: 0, evicted: new Map() }));
    return found;
  }

  /** Takes out what has expired: live values from the front, and each owner's memory of evictions. */
  private expire(): void {
    const now = this.now();
    for (const entry of this.all.values()) {
      if (entry.expires > now) break;
      this.forget(entry);
    }
    for (const [name, owner] of this.owners) {
      // Evicted oldest first, so in the order they would have expired.
      for (const [id, expires] of owner.evicted) {
        if (expires > now) break;
        owner.evicted.delete(id);
      }
      if (!owner.live.size && !owner.evicted.size) this.owners.delete(name);
    }
  }

  private forget(entry: Entry): void {
    const owner = this.owners.get(entry.owner);
    if (owner?.live.delete(entry.id)) owner.used -= entry.bytes;
    if (this.all.delete(ownedKey(entry.owner, entry.id))) this.total -= entry.bytes;
  }
}
