/**
 * Waiting for a condition instead of sleeping for a fixed time: a test goes on as soon as what it waits for
 * holds, and a deadline bounds a wait for something that never happens (the caller's assertion then fails).
 */

/** Polls `check` every 50 ms until `holds` accepts its value or `ms` pass; returns the last value. */
export async function eventually<T>(check: () => T | Promise<T>, holds: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (holds(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
