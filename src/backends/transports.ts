/**
 * Builds the SDK client transport for a backend spec. The only place that
 * knows which transport class serves which config `type`.
 */
import type { Stream } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { SignInSession } from "../auth/session.js";
import type { RemoteBackendSpec, StdioBackendSpec } from "../config/resolved.js";
import { noRedaction, type Redact } from "../util/redact.js";

/** A stderr line is shown cut to its first this many characters… */
const LINE_CHARS = 2048;
/**
 * …and an unfinished one is cut once it holds this many more: past the head
 * kept, a window wide enough to hold any form of a secret whole (a PEM key
 * JSON-escaped or percent-encoded is some KB; util/secret-forms.ts), so a
 * secret that runs across the cut is recognised before anything is dropped.
 */
const SECRET_WINDOW = 64 * 1024;
/** Redaction shortens a line dense with secrets, so one is held up to this long (as written) to keep a head of it; then it is cut whatever is left. */
const HELD_MAX = 256 * 1024;

/**
 * Keeps the last lines a child wrote to stderr, so a failure can say why.
 * Each line is redacted whole as it completes: the tail is later cut to a
 * few hundred characters, and a cut through a secret would leave a piece
 * that no redactor recognises. What is held is bounded whatever the child
 * writes: a line is cut at LINE_CHARS, and one that never ends is cut (and
 * the rest of it only counted) once SECRET_WINDOW more has come, so each
 * chunk costs its own length and 512 MB without a newline is just counted.
 */
export class StderrTail {
  private lines: string[] = [];
  /** Bytes to text across chunks: a character split between two chunks is joined, not turned into U+FFFD (which would also hide a secret from the redactor). */
  private readonly decoder = new StringDecoder("utf8");
  /** The unfinished line, as written, while it is short enough to hold. */
  private partial = "";
  /** How long `partial` may grow before it is redacted to see whether it can be cut. */
  private nextCheck = LINE_CHARS + SECRET_WINDOW;
  /** Once the unfinished line was cut: its head, redacted, and the characters it has had so far. */
  private cut: { head: string; chars: number } | undefined;

  constructor(
    private readonly max = 20,
    private readonly redact: Redact = noRedaction,
  ) {}

  attach(stream: Stream | null): void {
    stream?.on("data", (chunk: Buffer | string) => this.push(chunk));
    stream?.on("end", () => this.push(this.decoder.end()));
  }

  push(chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    // Lines this chunk ends; only the last `max` with text can still be shown, so only those are redacted.
    const ended: { text: string; final: boolean }[] = [];
    let start = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
      this.append(text.slice(start, newline));
      ended.push(this.cut ? { text: this.cutLine(), final: true } : { text: this.partial.replace(/\r$/, ""), final: false });
      this.partial = "";
      this.cut = undefined;
      this.nextCheck = LINE_CHARS + SECRET_WINDOW;
      start = newline + 1;
    }
    this.append(text.slice(start));
    const shown = ended.filter((line) => line.text.trim()).slice(-this.max);
    for (const line of shown) this.lines.push(line.final ? line.text : this.shorten(this.redact(line.text)));
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }

  text(): string {
    const current = this.cut ? this.cutLine() : this.shorten(this.redact(this.partial));
    return [...this.lines, current].filter((l) => l.trim()).join("\n");
  }

  /** Adds text that ends no line. */
  private append(text: string): void {
    if (this.cut) {
      this.cut.chars += text.length;
      return;
    }
    this.partial += text;
    if (this.partial.length < this.nextCheck) return;
    // Redact first, then cut. Only the end can still hold a secret unrecognised, one not yet finished: it
    // stays as written, within the last SECRET_WINDOW characters, which are dropped with the rest.
    const redacted = this.redact(this.partial);
    if (redacted.length < LINE_CHARS + SECRET_WINDOW && this.partial.length < HELD_MAX) {
      // Checked again only after half a window more, so each character is redacted a bounded number of times.
      this.nextCheck = this.partial.length + SECRET_WINDOW / 2;
      return;
    }
    this.cut = { head: redacted.slice(0, Math.max(0, Math.min(LINE_CHARS, redacted.length - SECRET_WINDOW))), chars: this.partial.length };
    this.partial = "";
  }

  private cutLine(): string {
    return `${this.cut!.head}… (a line of ${this.cut!.chars} characters, cut)`;
  }

  /** A finished, redacted line cut to LINE_CHARS. */
  private shorten(line: string): string {
    return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}… (a line of ${line.length} characters, cut)` : line;
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

/** `signIn` adds the backend's OAuth sign-in to every request (auth/session.ts). */
export function remoteTransport(spec: RemoteBackendSpec, signIn?: SignInSession): Transport {
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  const signed = (inner: FetchLike) => (signIn ? signIn.fetch(inner) : inner);
  return spec.kind === "sse"
    ? new SSEClientTransport(url, { requestInit, ...(signIn ? { fetch: signed(fetch) } : {}) })
    : new StreamableHTTPClientTransport(url, { requestInit, fetch: signed(cappedFetch(MAX_ANSWER_BYTES)) });
}

/**
 * fetch whose answers to requests (POSTs) stop with an error past `maxBytes`
 * while they are read, so a 100 MB answer is never held whole. The GET event
 * stream is left alone: it lives long and carries many small messages.
 */
export function cappedFetch(maxBytes: number, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if ((init?.method ?? "GET").toUpperCase() !== "POST" || !response.body) return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes)
            controller.error(
              new Error(
                `the answer was larger than ${Math.round(maxBytes / 2 ** 20)} MiB, the most one answer may be; ask for less (a smaller page, range or limit)`,
              ),
            );
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
