/**
 * The SDK's client handles a notification a microtask later, and a response
 * at once; a response also ends the request's progress handler. So when a
 * backend's progress notifications and its answer are read in one chunk
 * (a busy machine, a fast tool), the answer is handled first and every
 * progress message of the call is dropped. Here a response read after
 * notifications in the same turn of the event loop waits for the next turn,
 * and what comes after it waits behind it: the order stays the backend's.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client";

export class AfterNotifications {
  /** A notification went out in this turn of the event loop. */
  private notified = false;
  /** Messages waiting for the next turn, in the order read. */
  private held: JSONRPCMessage[] = [];

  constructor(private readonly deliver: (message: JSONRPCMessage) => void) {}

  push(message: JSONRPCMessage): void {
    if (this.held.length) {
      this.held.push(message);
      return;
    }
    const isResponse = "id" in message && !("method" in message);
    if (isResponse && this.notified) {
      this.held.push(message);
      setImmediate(() => this.release());
      return;
    }
    if ("method" in message && !("id" in message) && !this.notified) {
      this.notified = true;
      setImmediate(() => (this.notified = false));
    }
    this.deliver(message);
  }

  private release(): void {
    const held = this.held;
    this.held = [];
    this.notified = false;
    for (const message of held) this.push(message);
  }
}
