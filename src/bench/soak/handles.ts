/**
 * The output handles the soak's clients were given, and when each is read
 * again. A handle is read back at set shares of the lifetime its reply
 * stated (early, middle, near the end), from any session of the token that
 * made it. A read within the lifetime that fails, or returns another
 * output's text, is a handle lost: the server promised it and did not keep
 * it. When the reply also says the handle lasts only "until you store more
 * than X of further outputs", a failure after the token may have stored
 * more than that is eviction as stated, not a loss.
 */

/**
 * When each handle is read again, as shares of its stated lifetime. Every other handle is also read once past it (expected
 * gone, not counted as lost); the rest are never read again, as most outputs an agent leaves, so a store that drops expired
 * entries only when they are read shows its growth.
 */
const READ_AT = [0.05, 0.5, 0.9] as const;
const READ_LATE_AT = [...READ_AT, 1.2] as const;
/** A read counts against the promise only if it was sent this long before the lifetime ends (the handle was stored after its call was sent). */
const MARGIN_MS = 1000;
/** The store counts an output's encoding too (JSON quoting, its source); the replies state the text's bytes. */
const ENCODING_SLACK = 1.05;

export interface HandlePromise {
  lifetimeMs: number;
  /** Bytes of the same caller's later outputs after which the handle may be evicted, when the reply says so. */
  roomBytes?: number;
}

/** A call that may make an output, from when it is sent until it is answered. */
export interface Ticket {
  token: number;
  sentAt: number;
}

interface Output extends Ticket {
  handle: string;
  doneAt: number;
  /** As its reply's summary states them. */
  bytes: number;
}

interface Held extends Output, HandlePromise {
  /** What the blob's lines start with: a read that returns other text lost this output. */
  seed: string;
  /** Its reads, as shares of the lifetime, and the index of the next. */
  readAt: readonly number[];
  next: number;
}

export interface ReadTask {
  held: Held;
  /** The read is within the stated lifetime: a failure is a loss, unless evicted as stated. */
  promised: boolean;
}

export interface HandleCounts {
  made: number;
  /** Reads sent within the stated lifetime; those that failed against the promise; those evicted as the reply said they might be. */
  reads: number;
  lost: number;
  evictedAsStated: number;
  /** Reads past the lifetime, and those that still found the output (allowed: expiry may be lazy). */
  lateReads: number;
  lateFound: number;
  firstLoss?: string;
}

export class HandlePool {
  private readonly held: Held[] = [];
  private readonly outputs: Output[] = [];
  private readonly inFlight = new Set<Ticket>();
  /** Failed reads waiting to be judged: until every call of the token sent before the read ended, what it stored is not known. */
  private readonly failed: { held: Held; doneAt: number; why: string }[] = [];
  readonly counts: HandleCounts = { made: 0, reads: 0, lost: 0, evictedAsStated: 0, lateReads: 0, lateFound: 0 };

  /** Before sending a call that may make an output; `end` or `add` it when answered, whatever the answer. */
  begin(token: number): Ticket {
    const ticket = { token, sentAt: Date.now() };
    this.inFlight.add(ticket);
    return ticket;
  }

  end(ticket: Ticket): void {
    this.inFlight.delete(ticket);
  }

  add(ticket: Ticket, output: { handle: string; bytes: number; seed: string } & HandlePromise): void {
    this.end(ticket);
    const done = { ...ticket, ...output, doneAt: Date.now() };
    this.outputs.push(done);
    this.held.push({ ...done, readAt: this.counts.made % 2 ? READ_AT : READ_LATE_AT, next: 0 });
    this.counts.made++;
  }

  /** A read that is due for `token`, taken out of the schedule (at most one reader per read). */
  due(token: number, now = Date.now()): ReadTask | undefined {
    const index = this.held.findIndex((h) => h.token === token && now >= h.sentAt + h.readAt[h.next]! * h.lifetimeMs);
    if (index < 0) return undefined;
    const held = this.held[index]!;
    const age = now - held.sentAt;
    held.next++;
    if (held.next >= held.readAt.length) this.held.splice(index, 1);
    return { held, promised: age < held.lifetimeMs - MARGIN_MS };
  }

  /** What a read found: `text` is the slice read, undefined when the server answered that the handle is gone (`why`: its error code). */
  record(task: ReadTask, text: string | undefined, why = "other text"): void {
    const found = text !== undefined && text.startsWith(`${task.held.seed} line 1 `);
    if (!task.promised) {
      this.counts.lateReads++;
      if (found) this.counts.lateFound++;
      return;
    }
    this.counts.reads++;
    if (!found) this.failed.push({ held: task.held, doneAt: Date.now(), why });
    this.settle();
  }

  /** Judges the failed reads that can be judged now; at the end of the run (nothing in flight), all of them. */
  settle(): void {
    for (let i = this.failed.length - 1; i >= 0; i--) {
      const { held, doneAt, why } = this.failed[i]!;
      if ([...this.inFlight].some((t) => t.token === held.token && t.sentAt < doneAt)) continue;
      this.failed.splice(i, 1);
      // At most what its owner stored after it: every other output answered after it was asked for, and asked for before the read ended.
      const later = this.outputs
        .filter((o) => o.token === held.token && o.handle !== held.handle && o.doneAt > held.sentAt && o.sentAt < doneAt)
        .reduce((sum, o) => sum + o.bytes, 0);
      if (held.roomBytes !== undefined && later * ENCODING_SLACK > held.roomBytes) {
        this.counts.evictedAsStated++;
        continue;
      }
      this.counts.lost++;
      const age = Math.round((doneAt - held.sentAt) / 1000);
      const room = held.roomBytes === undefined ? "" : ` (room stated: ${mib(held.roomBytes)})`;
      this.counts.firstLoss ??= `${held.handle} at ${age} s of ${held.lifetimeMs / 1000} s, at most ${mib(later)} stored after it${room}: ${why}`;
    }
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * What a run_tool reply promises for its handle: a lifetime (`expires_at`, or "for N minutes" in its guidance) and, when it
 * says so, the room ("until you store more than 12.5 MiB of further outputs"). `fallbackMs` when it states no time.
 */
export function statedPromise(reply: Record<string, unknown>, sentAt: number, fallbackMs: number): HandlePromise {
  const text = [reply.hint, reply.warning, reply.must_follow].filter((t) => typeof t === "string").join(" ");
  let lifetimeMs = fallbackMs;
  const expires = typeof reply.expires_at === "string" ? Date.parse(reply.expires_at) : NaN;
  const time = /for (\d+(?:\.\d+)?) (second|minute|hour)s?\b/.exec(text);
  if (Number.isFinite(expires)) lifetimeMs = expires - sentAt;
  else if (time) lifetimeMs = Number(time[1]) * { second: 1000, minute: 60_000, hour: 3_600_000 }[time[2] as "second" | "minute" | "hour"];
  const room = /until you store more than (\d+(?:\.\d+)?) (bytes|KiB|MiB|GiB)/.exec(text);
  if (!room) return { lifetimeMs };
  return { lifetimeMs, roomBytes: Number(room[1]) * { bytes: 1, KiB: 1024, MiB: 2 ** 20, GiB: 2 ** 30 }[room[2] as "bytes" | "KiB" | "MiB" | "GiB"] };
}
