/**
 * Lets the event loop turn once: requests that arrived meanwhile (a search
 * on stdin, a call over HTTP) are read and served before long work goes on.
 * Background work at start (hashing, embedding) awaits it between slices.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Long synchronous work cut into slices of about `ms`: the work asks
 * `due()` between steps (cheap: a clock read) and, when it is, awaits
 * `pause()`, which lets the event loop turn once and starts a new slice.
 * So a 3-second index build delays a request that arrives meanwhile by
 * one slice, not by the whole build.
 */
export class Slices {
  private started = performance.now();

  constructor(
    /** Whether the work is still wanted: checked at each pause, which throws Superseded when it is not. */
    private readonly wanted: () => boolean = () => true,
    private readonly ms = SLICE_MS,
  ) {}

  due(): boolean {
    return performance.now() - this.started >= this.ms;
  }

  async pause(): Promise<void> {
    await nextTurn();
    if (!this.wanted()) throw new Superseded();
    this.started = performance.now();
  }
}

/** Work in slices stopped at a pause because newer work replaced it. */
export class Superseded extends Error {
  constructor() {
    super("superseded by newer work");
  }
}

/** The longest a slice of background work holds the event loop. */
export const SLICE_MS = 10;
