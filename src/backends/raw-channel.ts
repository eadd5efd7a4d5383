/**
 * Requests sent on a backend's transport beside the SDK client that owns it:
 * what the client cannot send or read itself (its 2.x release refuses a
 * `resultType: "task"` answer, so the tasks extension's traffic goes here).
 * They carry ids of their own (`metatools-N`, never the client's numbers);
 * their answers, and progress notifications for their tokens, are taken out
 * of the stream before the client sees it. Everything else reaches the
 * client unchanged.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

interface Waiting {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** A JSON-RPC error a backend answered a raw request with. */
export class RawRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class RawChannel {
  private readonly waiting = new Map<string, Waiting>();
  private readonly progress = new Map<string, (update: { progress: number; total?: number; message?: string }) => void>();
  private next = 0;
  private closed = false;

  /** Installs itself on `transport`, which its client has already connected (the client set its handlers). */
  constructor(private readonly transport: Transport) {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.take(message)) deliver?.(message, extra);
    };
    const closing = transport.onclose;
    transport.onclose = () => {
      this.close(new Error("the connection closed"));
      closing?.();
    };
  }

  /** `method` with `params`; the result, or a RawRequestError with the backend's error. `onProgress` receives progress sent for it. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs: number; onProgress?: (update: { progress: number; total?: number; message?: string }) => void },
  ): Promise<Record<string, unknown>> {
    if (this.closed) throw new Error("the connection closed");
    const id = `metatools-${++this.next}`;
    const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
    const sent = { ...params, _meta: options.onProgress ? { ...meta, progressToken: id } : meta };
    if (options.onProgress) this.progress.set(id, options.onProgress);
    // Over 2026-07-28 HTTP a request is cancelled by ending its own stream; elsewhere by a notification naming it.
    const stream = (this.transport as { hasPerRequestStream?: boolean }).hasPerRequestStream === true ? new AbortController() : undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await new Promise<Record<string, unknown>>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        const cancel = (error: Error) => {
          reject(error);
          if (stream) stream.abort(error);
          else void this.notify("notifications/cancelled", { requestId: id, reason: error.message, _meta: meta });
        };
        timer = setTimeout(() => cancel(new Error(`no answer to ${method} within ${options.timeoutMs} ms`)), options.timeoutMs);
        onAbort = () => cancel(options.signal?.reason instanceof Error ? options.signal.reason : new Error(`${method} was cancelled`));
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener("abort", onAbort, { once: true });
        this.transport
          .send({ jsonrpc: "2.0", id, method, params: sent } as JSONRPCMessage, stream ? ({ requestSignal: stream.signal } as never) : undefined)
          .catch((error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
      this.waiting.delete(id);
      this.progress.delete(id);
    }
  }

  /** Sends a notification (a cancel) beside the client. */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    if (!this.closed) await this.transport.send({ jsonrpc: "2.0", method, params } as JSONRPCMessage).catch(() => {});
  }

  /** Fails what is still waiting. */
  close(error: Error): void {
    this.closed = true;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
    this.progress.clear();
  }

  /** Whether `message` was one of ours (an answer, or progress for one of our tokens), handled here. */
  private take(message: JSONRPCMessage): boolean {
    const m = message as {
      id?: unknown;
      method?: string;
      params?: { progressToken?: unknown };
      result?: Record<string, unknown>;
      error?: { code: number; message: string };
    };
    if (m.method === "notifications/progress") {
      const token = m.params?.progressToken;
      const report = typeof token === "string" ? this.progress.get(token) : undefined;
      if (!report) return false;
      const { progress, total, message: text } = m.params as { progress: number; total?: number; message?: string };
      if (typeof progress === "number") report({ progress, total, message: typeof text === "string" ? text : undefined });
      return true;
    }
    if (m.method !== undefined || typeof m.id !== "string" || !m.id.startsWith("metatools-")) return false;
    const waiting = this.waiting.get(m.id);
    if (!waiting) return true; // late: its request gave up
    if (m.error) waiting.reject(new RawRequestError(m.error.code, m.error.message));
    else waiting.resolve(m.result ?? {});
    return true;
  }
}
