/**
 * The audit log a server keeps: `record` queues a line and returns at once
 * (a call's reply never waits on a disk or on Redis), and one writer appends
 * what is queued, in order, a batch at a time. The queue is bounded: when
 * the sink stalls past `maxQueued` lines, further records are counted as
 * dropped, and a gap line saying how many goes into the trail where they
 * would have been. A batch the sink refuses (a full disk, a link planted at
 * the file, Redis down) is lost too, told once in the log, and counted in
 * the next gap. Nothing here ever throws into a call.
 */
import { errorMessage } from "../util/errors.js";
import { AUDIT_VERSION, type AuditEntry, type AuditRecord } from "./record.js";

/** Where lines go, and where they are read back from (`metatools audit`). */
export interface AuditSink {
  /** The file or the store, for messages. */
  readonly where: string;
  /** Appends the lines (each a JSON object, no newline), in order, each whole. */
  append(lines: readonly string[]): Promise<void>;
  /** The last `count` entries `accept` keeps, oldest first; lines that are not valid entries are counted in `skipped`. */
  recent(count: number, accept: (entry: AuditEntry) => boolean): Promise<{ entries: AuditEntry[]; skipped: number }>;
  close(): Promise<void>;
}

export interface AuditLogOptions {
  /** Lines waiting for the sink at most; more are dropped (and counted). Default 10,000. */
  maxQueued?: number;
  /** Lines per append. Default 256. */
  batch?: number;
  /** Told once per problem until a write succeeds again. */
  warn?: (message: string) => void;
  now?: () => number;
}

/** How long `close` waits for queued lines before giving up on them (a stalled disk must not hold shutdown). */
const CLOSE_WAIT_MS = 5000;

export class AuditLog {
  /** Lines waiting, each a record or a gap (with the records it stands for). */
  private queue: { line: string; gap?: number }[] = [];
  private writing: Promise<void> | undefined;
  /** Lost since the last gap line was queued. */
  private lost = 0;
  private closed = false;
  private told = "";
  /** The last write failed: the next that succeeds says so. */
  private failing = false;
  private readonly maxQueued: number;
  private readonly batch: number;
  private readonly now: () => number;
  /** Records appended, and records lost (queue full or a write refused), since the log was made. */
  readonly counts = { written: 0, dropped: 0 };

  constructor(
    readonly sink: AuditSink,
    private readonly options: AuditLogOptions = {},
  ) {
    this.maxQueued = options.maxQueued ?? 10_000;
    this.batch = options.batch ?? 256;
    this.now = options.now ?? Date.now;
  }

  get where(): string {
    return this.sink.where;
  }

  /** Queues one record; returns at once. */
  record(record: AuditRecord): void {
    if (this.closed || this.queue.length >= this.maxQueued) {
      this.lose(1, this.closed ? "" : `audit: ${this.maxQueued} records are waiting for ${this.sink.where}; newer ones are dropped until it catches up`);
      return;
    }
    // The gap goes where the lost records would have been: before the first record kept after them.
    if (this.lost) this.queue.push(this.gap());
    this.queue.push({ line: JSON.stringify(record) });
    this.writing ??= this.drain();
  }

  /** Resolves when everything queued so far is written (or lost). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes what is queued (waiting at most a few seconds), a last gap line if records were lost, and closes the sink. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([this.flush(), waited]);
    if (this.lost && !this.writing) {
      this.queue.push(this.gap());
      this.writing = this.drain();
      await Promise.race([this.flush(), waited]);
    }
    clearTimeout(timer);
    await this.sink.close().catch(() => {});
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const items = this.queue.splice(0, this.batch);
        const records = items.filter((item) => item.gap === undefined).length;
        try {
          await this.sink.append(items.map((item) => item.line));
          this.counts.written += records;
          if (this.failing) this.options.warn?.(`audit: writing to ${this.sink.where} again`);
          this.failing = false;
          this.told = "";
        } catch (error) {
          this.failing = true;
          this.lose(records, `audit: records could not be written to ${this.sink.where}: ${errorMessage(error)}`);
          // A gap in the lost batch carries its count on into the next one (it was counted as dropped already).
          for (const item of items) this.lost += item.gap ?? 0;
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private lose(records: number, message: string): void {
    this.lost += records;
    this.counts.dropped += records;
    if (message && message !== this.told) {
      this.told = message;
      this.options.warn?.(message);
    }
  }

  private gap(): { line: string; gap: number } {
    const entry: AuditEntry = { v: AUDIT_VERSION, time: new Date(this.now()).toISOString(), dropped: this.lost };
    this.lost = 0;
    return { line: JSON.stringify(entry), gap: entry.dropped };
  }
}
