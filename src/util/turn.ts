/**
 * Lets the event loop turn once: requests that arrived meanwhile (a search
 * on stdin, a call over HTTP) are read and served before long work goes on.
 * Background work at start (hashing, embedding) awaits it between slices.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
