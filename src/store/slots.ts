/**
 * Slots: how many of one thing a caller holds at once (run_tool calls in
 * flight, questions waiting for its answer), bounded per caller. In one
 * process a count; on a shared Redis every replica's slots together, each
 * a lease in a sorted set per caller (its expiry the score) that the
 * process holding it renews while it runs, so a replica that dies without
 * giving its slots back frees them within a lease.
 */
import { randomUUID } from "node:crypto";
import type { KeyValue } from "./kv.js";

/** A slot held; `release` gives it back (twice is once). */
export interface Slot {
  release(): void;
}

export interface Slots {
  /** A slot of `owner`'s, or undefined when it holds `limit` already. Never rejects: a shared store that fails is replaced by this process's own count meanwhile (and says so once). */
  take(owner: string, limit: number): Promise<Slot | undefined>;
  /** Slots `owner` holds now (in this process, or on the shared store). */
  held(owner: string): Promise<number>;
  close(): void;
}

/** In this process: a count per owner. */
export class LocalSlots implements Slots {
  private readonly counts = new Map<string, number>();

  async take(owner: string, limit: number): Promise<Slot | undefined> {
    const count = this.counts.get(owner) ?? 0;
    if (count >= limit) return undefined;
    this.counts.set(owner, count + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.counts.get(owner) ?? 1) - 1;
        if (left > 0) this.counts.set(owner, left);
        else this.counts.delete(owner);
      },
    };
  }

  async held(owner: string): Promise<number> {
    return this.counts.get(owner) ?? 0;
  }

  close(): void {}
}

/** How long a slot on the shared store lasts unless renewed: a replica that stopped frees its slots within this. */
export const LEASE_MS = 30_000;

const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
`;
// KEYS: the owner's set. ARGV: prefix, slot id, limit, lease.
const TAKE = `${COMMON}
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
`;
// KEYS: the owner's set. ARGV: prefix, lease, slot ids. A slot whose lease lapsed (a renewal late past it) is put back: it is still held.
const RENEW = `${COMMON}
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;
const HELD = `${COMMON}
return redis.call('ZCARD', KEYS[1])
`;

/** On the shared store (Redis): every replica's slots of an owner in one sorted set, taken and renewed by scripts. */
export class SharedSlots implements Slots {
  /** The slots this process holds, by owner: renewed together every RENEW_MS. */
  private readonly mine = new Map<string, Set<string>>();
  private readonly timer: NodeJS.Timeout;
  /** While the store fails: this process's own count, so each replica still bounds what it holds. */
  private readonly local = new LocalSlots();
  private warned = false;

  constructor(
    private readonly store: KeyValue,
    /** What the slots count, in their keys: `calls`, `questions`. */
    private readonly kind: string,
    private readonly onError: (message: string) => void = () => {},
    /** How long a slot lasts unless renewed (renewed every third of it). Default LEASE_MS. */
    private readonly leaseMs = LEASE_MS,
  ) {
    this.timer = setInterval(() => void this.renew(), leaseMs / 3);
    this.timer.unref();
  }

  async take(owner: string, limit: number): Promise<Slot | undefined> {
    const id = randomUUID();
    try {
      const taken = await this.store.script!(TAKE, [this.key(owner)], [id, String(limit), String(this.leaseMs)]);
      if (Number(taken) !== 1) return undefined;
    } catch (error) {
      this.warn(error);
      return this.local.take(owner, limit);
    }
    const mine = this.mine.get(owner) ?? new Set<string>();
    mine.add(id);
    this.mine.set(owner, mine);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        mine.delete(id);
        if (!mine.size) this.mine.delete(owner);
        void this.store.script!(`redis.call('ZREM', KEYS[1], ARGV[2]) return 1`, [this.key(owner)], [id]).catch(() => {});
      },
    };
  }

  async held(owner: string): Promise<number> {
    try {
      return Number(await this.store.script!(HELD, [this.key(owner)], []));
    } catch {
      return this.local.held(owner);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    for (const [owner, ids] of this.mine) {
      if (!ids.size) continue;
      await this.store.script!(RENEW, [this.key(owner)], [String(this.leaseMs), ...ids]).catch((error: unknown) => this.warn(error));
    }
  }

  private key(owner: string): string {
    return `slots/${this.kind}/${owner}`;
  }

  private warn(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.onError(
      `the shared store could not count ${this.kind} per caller (${error instanceof Error ? error.message : String(error)}); until it can, this replica bounds them alone`,
    );
  }
}
