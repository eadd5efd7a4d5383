/** Whether the shared store answers: one read, timed. A store that cannot be reached still lets metatools serve, calling backends uncached. */
import type { KeyValue } from "./kv.js";
import { errorMessage } from "../util/errors.js";

export interface StoreHealth {
  kind: KeyValue["kind"];
  /** Where it is, with any password masked. */
  where: string;
  ok: boolean;
  error?: string;
  /** Round trip of one read. */
  ms: number;
}

export async function storeHealth(store: KeyValue): Promise<StoreHealth> {
  const started = performance.now();
  try {
    await store.get("ping");
    return { kind: store.kind, where: store.where, ok: true, ms: performance.now() - started };
  } catch (error) {
    return { kind: store.kind, where: store.where, ok: false, error: errorMessage(error), ms: performance.now() - started };
  }
}
