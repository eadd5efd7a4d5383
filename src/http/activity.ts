/**
 * What one HTTP session is doing, for the idle sweep: the HTTP exchanges
 * open on it and the JSON-RPC requests it is handling. A session is busy
 * while either is open, and its idle time counts from when the last one
 * ended, so a long call, or a client holding its event stream, is never
 * taken for silence.
 *
 * An exchange is a request to `/mcp` from its arrival until its response
 * closes: a call's streamed answer, or a GET event stream for as long as its
 * client is connected (Node closes the response when the connection goes).
 * A JSON-RPC request is open from its arrival until its answer is sent,
 * delivered or not, or until the client cancels it. A call whose client left
 * keeps the session until the call ends, which its own deadline bounds.
 */
import type { ServerResponse } from "node:http";
import { CancelledNotificationSchema } from "@modelcontextprotocol/core";
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type RequestId,
  type Transport,
} from "@modelcontextprotocol/server";
import type { Logger } from "../util/log.js";

/** The JSON-RPC code of an answer that cannot come because the connection closed (the SDK's 1.x `ConnectionClosed`). */
const CONNECTION_CLOSED = -32000;

export class Activity {
  private exchanges = 0;
  /** Who waits for the last exchange to close (`quiet`). */
  private readonly waiting = new Set<() => void>();
  /** Requests received and not yet answered, by id. */
  private readonly calls = new Set<RequestId>();
  private since = Date.now();

  /** `name` is how the log names the session (its id, once it has one). */
  constructor(
    private readonly logger: Logger,
    private readonly name: () => string,
  ) {}

  /** True while an exchange or a request is open. */
  get busy(): boolean {
    return this.exchanges > 0 || this.calls.size > 0;
  }

  /** When the session last stopped being busy (or was opened); meaningful only when it is not busy. */
  get idleSince(): number {
    return this.since;
  }

  /** Counts an HTTP request on the session until its response closes, whichever side ends it. */
  exchange(res: ServerResponse): void {
    this.exchanges++;
    res.once("close", () => {
      this.exchanges--;
      this.since = Date.now();
      if (this.exchanges === 0) for (const wake of this.waiting) wake();
    });
  }

  /** Resolves once no exchange is open (what was written has reached the connection's end), or after `ms`. */
  quiet(ms: number): Promise<void> {
    if (this.exchanges === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms).unref();
      this.waiting.add(wake);
    });
  }

  /**
   * Follows the requests `transport` receives and the answers it sends.
   * Call it once the MCP server is connected to the transport: it wraps the
   * handler the server installed.
   */
  watch(transport: Transport): void {
    const receive = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message)) this.calls.add(message.id);
      else if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
        // A cancelled request gets no answer (the SDK drops it): the client stopped waiting, so it is over.
        const cancelled = CancelledNotificationSchema.safeParse(message);
        if (cancelled.success && cancelled.data.params.requestId !== undefined) this.end(cancelled.data.params.requestId);
      }
      receive?.(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const id = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
      if (id === undefined || !this.calls.has(id)) return send(message, options);
      try {
        await send(message, options);
      } catch (error) {
        this.dropped(String(id));
        throw error;
      } finally {
        this.end(id);
      }
    };
    // The transport reports an answer whose stream is gone (the client left) as an error, and drops it.
    const failed = transport.onerror;
    transport.onerror = (error) => {
      const undeliverable = /^Response for request ID (.+) is undeliverable/.exec(error.message);
      if (undeliverable) this.dropped(undeliverable[1]!);
      failed?.(error);
    };
  }

  private dropped(id: string): void {
    this.logger.info(`session ${this.name()}: request ${id} ended after its client left; its answer was dropped`);
  }

  /**
   * Answers every request still open with an error saying why the session
   * is closing, so no client waits for an answer that cannot come. Call it
   * before closing the transport: the answers go out on the requests' own
   * streams, which the close ends.
   */
  async abandon(transport: Transport, reason: string): Promise<void> {
    const open = [...this.calls];
    await Promise.all(
      open.map((id) =>
        transport
          .send({ jsonrpc: "2.0", id, error: { code: CONNECTION_CLOSED, message: `${reason}: the session closed before this request was answered` } })
          .catch(() => {}),
      ),
    );
  }

  private end(id: RequestId): void {
    if (this.calls.delete(id)) this.since = Date.now();
  }
}
