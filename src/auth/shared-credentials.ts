/**
 * Sign-ins in the shared store (Redis, SQLite): one for every replica that
 * points at it, watched by polling while a backend waits for one.
 */
import type { KeyValue } from "../store/kv.js";
import type { Credentials, RecordView, SignIn } from "./credentials.js";

/** Sign-ins kept for ten years: they end when a person signs out, not by expiry of the entry. */
const SHARED_TTL_MS = 10 * 365 * 24 * 3600_000;
const POLL_MS = 2000;

/** The shared store (Redis, SQLite): one sign-in for every replica pointing at it. Watched by polling while someone listens. */
export class SharedCredentials implements Credentials {
  private readonly listeners = new Map<string, { set: Set<() => void>; seen: number | undefined; timer: NodeJS.Timeout }>();

  constructor(private readonly kv: KeyValue) {}

  get where(): string {
    return this.kv.where;
  }

  read(namespace: string): Promise<SignIn | undefined> {
    return this.kv.get<SignIn>(key(namespace));
  }

  async update(namespace: string, change: (current: SignIn | undefined) => SignIn | undefined): Promise<SignIn | undefined> {
    const current = await this.read(namespace);
    const next = change(current);
    if (!next) {
      await this.kv.delete(key(namespace));
      return undefined;
    }
    const stamped = { ...next, updatedAt: Math.max(Date.now(), (current?.updatedAt ?? 0) + 1) };
    await this.kv.set(key(namespace), stamped, SHARED_TTL_MS);
    return stamped;
  }

  /** No lock across replicas here: writes inside re-check what they replace (signer.ts), and a replica that lost a race reads the winner's tokens. */
  exclusive<T>(namespace: string, _holdMs: number, work: (view: RecordView) => Promise<T>): Promise<T> {
    return work({ read: () => this.read(namespace), write: (change) => this.update(namespace, change) });
  }

  watch(namespace: string, listener: () => void): () => void {
    let entry = this.listeners.get(namespace);
    if (!entry) {
      const created = { set: new Set<() => void>(), seen: undefined as number | undefined, timer: setInterval(() => void this.poll(namespace), POLL_MS) };
      created.timer.unref();
      this.listeners.set(namespace, (entry = created));
      void this.read(namespace).then(
        (r) => (created.seen = r?.updatedAt),
        () => {},
      );
    }
    entry.set.add(listener);
    return () => {
      entry.set.delete(listener);
      if (entry.set.size) return;
      clearInterval(entry.timer);
      this.listeners.delete(namespace);
    };
  }

  async close(): Promise<void> {
    for (const entry of this.listeners.values()) clearInterval(entry.timer);
    this.listeners.clear();
    await this.kv.close();
  }

  private async poll(namespace: string): Promise<void> {
    const entry = this.listeners.get(namespace);
    if (!entry) return;
    const now = await this.read(namespace).then(
      (r) => r?.updatedAt,
      () => entry.seen,
    );
    if (now === entry.seen) return;
    entry.seen = now;
    for (const listener of [...entry.set]) listener();
  }
}

function key(namespace: string): string {
  return `signin:${namespace}`;
}
