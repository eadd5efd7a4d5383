/**
 * When a backend that failed is tried again: along an exponential backoff
 * (jittered by ±25% unless the schedule was given, as tests give it), then,
 * once the schedule is spent, once per breaker period (the circuit is open).
 */
import type { ManagerOptions } from "./state.js";

export class RetrySchedule {
  /** How long an open circuit waits between tries, and a backend waiting for a sign-in between checks. */
  readonly breakerMs: number;
  private readonly backoffMs: readonly number[];
  private readonly jitter: (ms: number) => number;

  constructor(options: Pick<ManagerOptions, "backoffMs" | "breakerMs" | "random">) {
    const random = options.random ?? Math.random;
    this.jitter = options.backoffMs ? (ms) => ms : (ms) => Math.round(ms * (0.75 + random() * 0.5));
    this.backoffMs = options.backoffMs ?? [1000, 2000, 4000, 8000, 16000];
    this.breakerMs = options.breakerMs ?? 300_000;
  }

  /** The wait before attempt number `attempt` (1 after the first failure), and whether the circuit is open by then. */
  next(attempt: number): { delayMs: number; open: boolean } {
    const step = this.backoffMs[attempt - 1];
    return step === undefined ? { delayMs: this.breakerMs, open: true } : { delayMs: this.jitter(step), open: false };
  }
}
