/**
 * Work tried again later, per key, with a wait that doubles each time (30 s
 * up to 10 minutes): for an embedder that runs elsewhere (an embedding
 * service), which may be down for a while (semantic.ts).
 */

/** The first wait, and the longest. */
const FIRST_MS = 30_000;
const MAX_MS = 10 * 60_000;

export class Retries {
  private readonly waiting = new Map<string, { timer: NodeJS.Timeout; delayMs: number }>();
  private closed = false;

  /** Runs `retry` after this key's next wait; a later call for the same key replaces the one waiting. */
  later(key: string, retry: () => void): void {
    if (this.closed) return;
    const previous = this.waiting.get(key);
    if (previous) clearTimeout(previous.timer);
    const delayMs = previous ? Math.min(MAX_MS, previous.delayMs * 2) : FIRST_MS;
    const timer = setTimeout(retry, delayMs);
    timer.unref();
    this.waiting.set(key, { timer, delayMs });
  }

  /** The key's work succeeded: its next failure waits the first wait again. */
  done(key: string): void {
    clearTimeout(this.waiting.get(key)?.timer);
    this.waiting.delete(key);
  }

  /** Nothing waits any more, and nothing will. */
  close(): void {
    this.closed = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }
}
