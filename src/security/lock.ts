/**
 * metatools.lock.json: each tool's definition hash and the terms it is
 * served on (terms.ts), by the id it is served as, pinned when first seen
 * clean or when a person approves it. A definition or terms that change
 * later (a "rug pull": the same tool, new instructions; or the same words
 * under another server name that a catalog makes read-only) no longer
 * match the pin and are quarantined until approved again.
 *
 * Bounded (docs/security.md, "Pin"): the pins of tools a backend lists now
 * and approved pins are always kept; of first-use pins of tools their
 * namespace no longer lists, the `maxUnlistedPins` most recently listed are
 * kept. Written incrementally: nothing is written when nothing changed,
 * changes wait `LOCK_WRITE_DELAY_MS` so a burst of tool-list changes is one
 * write, and the day a tool was last listed (not the time) is recorded, so
 * listing the same tools again changes nothing on disk.
 */
import { DEFAULTS } from "../config/defaults.js";
import { writeFileAtomic } from "../util/files.js";
import { mergeChange, readPins, serializePins, stampOf, type Change, type Pin } from "./lock-format.js";
import { sameTerms, type Terms } from "./terms.js";

export { definitionHash, hasHash } from "./definition.js";
export type { Pin } from "./lock-format.js";

/** How long changes wait to be written: a backend that renames its tools every few seconds costs one write per this period, not one per list. */
export const LOCK_WRITE_DELAY_MS = 10_000;
/** How often a serving process looks for a lock file rewritten by someone else (an approval). */
export const LOCK_POLL_MS = 2000;

export interface LockOptions {
  /** First-use pins of tools a namespace does not list now, kept per namespace (the most recently listed). Default `DEFAULTS.security.maxUnlistedPins`. */
  maxUnlistedPins?: number;
  /** Default `LOCK_WRITE_DELAY_MS`. */
  writeDelayMs?: number;
  /** Where a failure in the background (a write, a file that is not valid) is reported; a write is tried again with the next change. */
  onError?: (error: unknown) => void;
  /** The clock (milliseconds), for tests of the day granularity. */
  now?: () => number;
  /**
   * After each save (a write, or none when nothing changed): the hashes pinned now, whether the file was written, and
   * whether it was the background save (`later`: what follows it may be done in the background too). Kept definitions
   * follow the pins (definitions.ts).
   */
  onSave?: (pinned: Iterable<string>, wrote: boolean, later: boolean) => void;
}

/** A UTC day, YYYY-MM-DD: how precisely the file records when a tool was last listed. */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const seenDay = (pin: Pin) => pin.seen ?? pin.at.slice(0, 10);

export class LockFile {
  private pins = new Map<string, Pin>();
  /** Changes not yet written, by tool id: re-applied over the file when someone else (`metatools approve`) rewrote it meanwhile. */
  private readonly pending = new Map<string, Change>();
  /** When this process last saw each pinned tool listed: orders pins listed the same day. */
  private readonly lastListed = new Map<string, number>();
  private readonly listeners: (() => void)[] = [];
  /** The file as this process last read or wrote it (inode, size, mtime): another stamp means someone else wrote it. */
  private stamp: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private readonly maxUnlisted: number;
  private readonly now: () => number;

  constructor(
    readonly file: string,
    private readonly options: LockOptions = {},
  ) {
    this.maxUnlisted = options.maxUnlistedPins ?? DEFAULTS.security.maxUnlistedPins;
    this.now = options.now ?? Date.now;
    this.reload();
  }

  /** Called after the file changed on disk and was read again (an approval from the CLI). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * Re-reads the file if it changed on disk, keeping this process's changes
   * not yet written unless the file now says otherwise (an approval, another
   * definition); true when it did. A file that is not valid throws, and the
   * pins in memory stay until it is.
   */
  reload(): boolean {
    const stamp = stampOf(this.file);
    if (stamp === this.stamp) return false;
    const pins = readPins(this.file);
    const first = this.stamp === undefined;
    this.stamp = stamp;
    for (const [id, change] of this.pending) if (!mergeChange(pins, id, change)) this.pending.delete(id);
    this.pins = pins;
    for (const id of this.lastListed.keys()) if (!pins.has(id)) this.lastListed.delete(id);
    // Changes kept while the file was not valid are written now that it is.
    if (this.pending.size) this.schedule();
    if (!first) for (const listener of this.listeners) listener();
    return true;
  }

  /** Reloads every `LOCK_POLL_MS` until closed, so an approval made meanwhile lets its tool in without a restart. */
  watch(): void {
    this.poll ??= setInterval(() => this.quietly(() => this.reload()), LOCK_POLL_MS).unref();
  }

  /** Stops watching and writes what is not written yet. */
  close(): void {
    clearInterval(this.poll);
    this.quietly(() => this.save());
  }

  /** Tools pinned. */
  get size(): number {
    return this.pins.size;
  }

  get(id: string): Pin | undefined {
    return this.pins.get(id);
  }

  /** Pins a definition and its terms in memory; written with the next save (at most `writeDelayMs` later). Pinning what is pinned changes nothing. */
  pin(id: string, hash: string, by: Pin["by"], terms?: Terms): void {
    const old = this.pins.get(id);
    if (old?.hash === hash && old.by === by && sameTerms(old.terms, terms)) return;
    const now = this.now();
    this.lastListed.set(id, now);
    this.record(id, { hash, by, at: new Date(now).toISOString(), seen: dayOf(now), ...(terms ? { terms } : {}) });
  }

  /**
   * Records a pin an earlier release made, as this release keeps it: with the terms its tool is listed on now (it had
   * none), or under the id its tool is served as (it was pinned by its backend's spelling). Never over what the file says
   * meanwhile: it fills in only a pin that is not there, or the same definition's without terms (lock-format.ts).
   */
  adopt(id: string, pin: Pin): void {
    const old = this.pins.get(id);
    if (old && (old.hash !== pin.hash || old.terms !== undefined)) return;
    this.notice(id, { ...pin, ...(old?.seen ? { seen: old.seen } : {}) });
  }

  /** A pin this process noticed something of, written as `adopted`: over the file only where the file has the same definition (lock-format.ts). */
  private notice(id: string, pin: Pin): void {
    this.pins.set(id, pin);
    const waiting = this.pending.get(id);
    // A pin set here and not written yet stays a pin set: what is noticed of it goes with it.
    this.pending.set(id, waiting && "pin" in waiting ? { pin } : { adopted: pin });
    this.schedule();
  }

  /**
   * A namespace's backend listed these tools: its whole list, never the
   * empty one a backend that went away leaves, nor a snapshot's. Their pins
   * are marked seen today (once a day: listing again the same day changes
   * nothing on disk), and the namespace's first-use pins of tools it does
   * not list beyond the `maxUnlistedPins` most recently listed are pruned.
   * Listed tools' pins and approved pins are never pruned: a listed tool
   * whose definition changed still meets its pin.
   */
  listed(namespace: string, ids: readonly string[]): void {
    const now = this.now();
    const today = dayOf(now);
    for (const id of ids) {
      const pin = this.pins.get(id);
      if (!pin) continue;
      this.lastListed.set(id, now);
      if (seenDay(pin) < today) this.notice(id, { ...pin, seen: today });
    }
    this.prune(namespace, new Set(ids));
  }

  /**
   * Writes the changes now (an approval reaches the file before the command
   * ends). The file is read again first when someone else wrote it, so what
   * they wrote stays; nothing is written when nothing changed.
   */
  save(later = false): void {
    this.reload();
    clearTimeout(this.timer);
    this.timer = undefined;
    const wrote = this.pending.size > 0;
    if (wrote) {
      writeFileAtomic(this.file, serializePins(this.pins));
      this.pending.clear();
      this.stamp = stampOf(this.file);
    }
    this.options.onSave?.(
      [...this.pins.values()].map((pin) => pin.hash),
      wrote,
      later,
    );
  }

  private prune(namespace: string, listed: ReadonlySet<string>): void {
    const prefix = `${namespace}:`;
    const unlisted: { id: string; pin: Pin; seen: string; last: number }[] = [];
    for (const [id, pin] of this.pins)
      if (pin.by === "first-use" && !listed.has(id) && id.startsWith(prefix))
        unlisted.push({ id, pin, seen: seenDay(pin), last: this.lastListed.get(id) ?? 0 });
    const excess = unlisted.length - this.maxUnlisted;
    if (excess <= 0) return;
    // Least recently listed first: by the day on disk, then the time this process last listed it, then when it was pinned.
    unlisted.sort((a, b) => cmp(a.seen, b.seen) || a.last - b.last || cmp(a.pin.at, b.pin.at) || cmp(a.id, b.id));
    for (const { id, pin } of unlisted.slice(0, excess)) {
      this.pins.delete(id);
      this.lastListed.delete(id);
      this.pending.set(id, { pruned: pin });
    }
    this.schedule();
  }

  private record(id: string, pin: Pin): void {
    this.pins.set(id, pin);
    this.pending.set(id, { pin });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.quietly(() => this.save(true));
    }, this.options.writeDelayMs ?? LOCK_WRITE_DELAY_MS);
    this.timer.unref();
  }

  private quietly(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
