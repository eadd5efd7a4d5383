/**
 * A backend's question to a 2026-07-28 client, which cannot be sent a
 * request: the call is parked and the client is answered
 * `input_required`, with the question and a `requestState` naming the parked
 * call; its retry carries the answer, which goes to the backend, and waits
 * for what comes next (the result, or another question).
 *
 * The call keeps running between the rounds, on a signal of its own: the
 * request that returned `input_required` is over, the call is not. It ends
 * when it completes, when the client cancels a retry, or when no retry
 * comes within the question's lifetime (it is then cancelled, and the
 * backend is told the question was not answered).
 *
 * The `requestState` is signed (HMAC, with a key replicas share through the
 * store), bound to the caller and expires with the question: a forged,
 * altered, another caller's or late one is refused before any handler runs,
 * and one used twice finds its question claimed. It names a call parked in
 * one process: a retry that reaches another replica hands the answer over
 * through the store and returns what came of it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallToolResult, ElicitRequest, ElicitResult, InputRequest, ServerContext } from "@modelcontextprotocol/server";
import type { ParkedCall } from "./parked-call.js";

/** The payload a `requestState` carries: which parked call, and which question of it. */
export interface ParkedState {
  call: string;
  question: string;
}

/** What came of an answer given to a call parked in another replica. */
export type RemoteStep =
  { kind: "result"; result: CallToolResult } | { kind: "question"; params: ElicitRequest["params"]; state: ParkedState } | { kind: "error"; message: string };

/** The key under which the question travels in `inputRequests` and its answer in `inputResponses`. */
export const QUESTION_KEY = "question";

/** What the relay keeps in the shared store (the app's key-value store, src/store/kv.ts, fits it). */
export interface RelayStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** Atomic across replicas. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** Redis only: a Lua script, run atomically. */
  script?(source: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
}

/** How often a parked call looks for an answer given to another replica, and that replica for what came of it. */
const POLL_MS = 200;
/** How long the shared signing key lives in the store: far beyond any question's lifetime. */
const KEY_TTL_MS = 30 * 24 * 3600_000;

/**
 * The calls parked in this process, each until its retry comes or its
 * question's lifetime is over. Replicas behind a load balancer share the
 * store: the key that signs every `requestState`, each question's claim
 * (answered once, whichever replica gets the retry), and a mailbox through
 * which a retry that reaches another replica hands its answer to the one
 * where the call waits, and gets back what came of it.
 */
export class QuestionRelay {
  private readonly parked = new Map<string, { call: ParkedCall; question: string; timer: NodeJS.Timeout }>();
  private signing: Promise<Uint8Array> | undefined;

  constructor(
    private readonly store: RelayStore,
    /** How long a question waits for its answer: the call is then cancelled. */
    readonly lifetimeMs: number,
    /** The store is shared with other processes (Redis): a parked call looks there for an answer another replica was given. */
    private readonly shared = true,
  ) {}

  get size(): number {
    return this.parked.size;
  }

  /** A codec binding each state to `principal` (the caller's id): another caller's state fails its check. */
  codec(principal: string) {
    // The SDK's server package is loaded by what serves (a CLI run never mints a state): not imported up front here.
    const codec = async () => {
      const { createRequestStateCodec } = await import("@modelcontextprotocol/server");
      return createRequestStateCodec<ParkedState>({ key: await this.key(), ttlSeconds: Math.ceil(this.lifetimeMs / 1000), bind: () => principal });
    };
    return {
      mint: async (payload: ParkedState, ctx: ServerContext) => (await codec()).mint(payload, ctx),
      verify: async (state: string, ctx: ServerContext) => (await codec()).verify(state, ctx),
    };
  }

  /** Parks `call` until its retry; returns its state payload. It also waits for an answer given to another replica. */
  park(call: ParkedCall, id: string = randomUUID()): ParkedState {
    const question = randomUUID();
    const timer = setTimeout(() => {
      this.parked.delete(id);
      call.abandon(`the question was not answered within ${Math.round(this.lifetimeMs / 1000)} s`);
    }, this.lifetimeMs);
    timer.unref();
    this.parked.set(id, { call, question, timer });
    const state = { call: id, question };
    if (this.shared) void this.watch(state);
    return state;
  }

  /** Whether this retry is the first for its question (a replayed state is refused), in any replica. */
  async claim(state: ParkedState): Promise<boolean> {
    return (await this.store.increment(`claim/${state.call}/${state.question}`, this.lifetimeMs)) === 1;
  }

  /** The parked call a retry names, if it waits in this process, taken out. */
  take(state: ParkedState): ParkedCall | undefined {
    const entry = this.parked.get(state.call);
    if (!entry || entry.question !== state.question) return undefined;
    this.parked.delete(state.call);
    clearTimeout(entry.timer);
    return entry.call;
  }

  /**
   * Hands `answer` to the replica where the call waits, and waits (until
   * `signal` or the question's lifetime) for what came of it; undefined when
   * nothing comes: that call is over.
   */
  async resumeElsewhere(state: ParkedState, answer: ElicitResult, signal: AbortSignal): Promise<RemoteStep | undefined> {
    await this.store.set(`answer/${state.call}/${state.question}`, answer, this.lifetimeMs);
    const until = Date.now() + this.lifetimeMs;
    while (!signal.aborted && Date.now() < until) {
      const step = await this.store.get<RemoteStep>(`step/${state.call}/${state.question}`);
      if (step) return step;
      await sleep(POLL_MS, undefined, { ref: false });
    }
    return undefined;
  }

  /** Cancels every parked call (the server is closing). */
  close(): void {
    for (const [id, entry] of this.parked) {
      clearTimeout(entry.timer);
      entry.call.abandon("the server is closing");
      this.parked.delete(id);
    }
  }

  /** While the call waits here for this question, looks for an answer another replica was given, and answers back with what came of it. */
  private async watch(state: ParkedState): Promise<void> {
    const waiting = () => this.parked.get(state.call)?.question === state.question;
    while (waiting()) {
      await sleep(POLL_MS, undefined, { ref: false });
      const answer = await this.store.get<ElicitResult>(`answer/${state.call}/${state.question}`).catch(() => undefined);
      if (!answer || !waiting()) continue;
      const call = this.take(state)!;
      call.answer(answer);
      let step: RemoteStep;
      try {
        const next = await call.next(AbortSignal.timeout(this.lifetimeMs));
        step = next.kind === "result" ? next : { kind: "question", params: next.params, state: this.park(call) };
      } catch (error) {
        step = { kind: "error", message: error instanceof Error ? error.message : String(error) };
      }
      await this.store.set(`step/${state.call}/${state.question}`, step, this.lifetimeMs).catch(() => {});
      return;
    }
  }

  private key(): Promise<Uint8Array> {
    return (this.signing ??= this.sharedKey());
  }

  /** One key for every replica: the first to start stores one; every one uses what the store holds. */
  private async sharedKey(): Promise<Uint8Array> {
    const fresh = randomBytes(32).toString("base64");
    let held: string | undefined;
    if (this.store.script) {
      const found = await this.store.script(
        "redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3]) return redis.call('GET', KEYS[1])",
        ["signing-key"],
        [fresh, String(KEY_TTL_MS)],
      );
      held = typeof found === "string" ? found : undefined;
    } else {
      held = await this.store.get<string>("signing-key");
      if (!held) {
        await this.store.set("signing-key", fresh, KEY_TTL_MS);
        held = (await this.store.get<string>("signing-key")) ?? fresh;
      }
    }
    return Buffer.from(held ?? fresh, "base64");
  }
}

/** The question as `input_required` carries it. */
export function questionRequest(params: ElicitRequest["params"]): InputRequest {
  return { method: "elicitation/create", params } as InputRequest;
}
