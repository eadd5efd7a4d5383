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

/** Keeps the last lines a child wrote to stderr, so a failure can say why. */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(private readonly max = 20) {}

  attach(stream: Stream | null): void {
    stream?.on("data", (chunk: Buffer | string) => this.push(String(chunk)));
  }

  push(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    for (const line of parts) if (line.trim()) this.lines.push(line);
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }

  text(): string {
    return [...this.lines, this.partial].filter((l) => l.trim()).join("\n");
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

export function remoteTransport(spec: RemoteBackendSpec): Transport {
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  return spec.kind === "sse" ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
}
