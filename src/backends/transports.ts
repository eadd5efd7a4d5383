/**
 * Builds the SDK client transport for a backend spec. The only place that
 * knows which transport class serves which config `type`.
 */
import type { Stream } from "node:stream";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { RemoteBackendSpec, StdioBackendSpec } from "../config/resolved.js";
import { noRedaction, type Redact } from "../util/redact.js";

/**
 * Keeps the last lines a child wrote to stderr, so a failure can say why.
 * Each line is redacted whole as it completes: the tail is later cut to a
 * few hundred characters, and a cut through a secret would leave a piece
 * that no redactor recognises.
 */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(
    private readonly max = 20,
    private readonly redact: Redact = noRedaction,
  ) {}

  attach(stream: Stream | null): void {
    stream?.on("data", (chunk: Buffer | string) => this.push(String(chunk)));
  }

  push(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    for (const line of parts) if (line.trim()) this.lines.push(this.redact(line));
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }

  text(): string {
    return [...this.lines, this.redact(this.partial)].filter((l) => l.trim()).join("\n");
  }
}

export function stdioTransport(spec: StdioBackendSpec, stderr: StderrTail): Transport {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: Object.keys(spec.env).length ? spec.env : undefined,
    cwd: spec.cwd,
    stderr: "pipe",
  });
  stderr.attach(transport.stderr);
  return transport;
}

/** The most one answer may carry: the MCP SDK's own limit for a stdio message, so both kinds of backend agree. */
export const MAX_ANSWER_BYTES = 10 * 2 ** 20;

export function remoteTransport(spec: RemoteBackendSpec): Transport {
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  return spec.kind === "sse" ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit, fetch: cappedFetch(MAX_ANSWER_BYTES) });
}

/**
 * fetch whose answers to requests (POSTs) stop with an error past `maxBytes`
 * while they are read, so a 100 MB answer is never held whole. The GET event
 * stream is left alone: it lives long and carries many small messages.
 */
export function cappedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET").toUpperCase() !== "POST" || !response.body) return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new Error(`the answer was larger than ${Math.round(maxBytes / 2 ** 20)} MiB, the most one answer may be; ask for less (a smaller page, range or limit)`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
