/**
 * Builds the SDK client transport for a backend spec. The only place that
 * knows which transport class serves which config `type`.
 */
import type { Stream } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { TokenSigner } from "../auth/signer.js";
import type { RemoteBackendSpec, StdioBackendSpec } from "../config/resolved.js";
import { answerTooLarge, cappedFetch, eventTooLarge, MAX_ANSWER_BYTES, MAX_EVENT_BYTES } from "./capped-fetch.js";
import { noRedaction, type Redact } from "../util/redact.js";
import { ProcessGroupTransport } from "./process-group.js";
import type { GroupWatch } from "./reaper.js";

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

  /** Forgets what was written: a new process of the same server starts its own tail. */
  clear(): void {
    this.lines = [];
    this.partial = "";
    this.cut = undefined;
    this.nextCheck = LINE_CHARS + SECRET_WINDOW;
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

/**
 * A stdio server's transport. On POSIX the server runs in a process group of
 * its own, reported to `groups` (the reaper), so it is stopped with all it
 * started (process-group.ts); Windows has no process groups, so there it is
 * the SDK's transport, which stops the direct child only (docs/deploy.md).
 */
export function stdioTransport(spec: StdioBackendSpec, stderr: StderrTail, groups?: GroupWatch): Transport {
  const params = { command: spec.command, args: spec.args, env: Object.keys(spec.env).length ? spec.env : undefined, cwd: spec.cwd };
  const transport = process.platform === "win32" ? new StdioClientTransport({ ...params, stderr: "pipe" }) : new ProcessGroupTransport(params, groups);
  stderr.attach(transport.stderr);
  return transport;
}

/** A stdio server's process while it runs, and how to signal it: with its whole group where it has one. */
export interface StdioProcess {
  pid: number;
  /** False when nothing of it is left to signal. */
  signal(signal: NodeJS.Signals): boolean;
}

/** The process behind a stdio transport; undefined for other transports, or when none runs. */
export function stdioProcess(transport: Transport | undefined): StdioProcess | undefined {
  if (transport instanceof ProcessGroupTransport) {
    const pid = transport.pid;
    return pid === null ? undefined : { pid, signal: (signal) => transport.signal(signal) };
  }
  const pid = transport instanceof StdioClientTransport ? transport.pid : null;
  if (pid === null) return undefined;
  return {
    pid,
    signal: (signal) => {
      try {
        return process.kill(pid, signal);
      } catch {
        return false;
      }
    },
  };
}

/** What opening a transport may use: a stdio child's stderr tail and reaper, a remote backend's OAuth sign-in (auth/signer.ts). */
export interface TransportNeeds {
  stderr: StderrTail;
  groups?: GroupWatch;
  signIn?: TokenSigner;
}

type McpSpec = StdioBackendSpec | RemoteBackendSpec;

/** How each kind McpBackend speaks MCP over is opened: a new transport is its row in model/transport-kinds.ts and one line here. */
const OPENERS: { [K in McpSpec["kind"]]: (spec: McpSpec & { kind: K }, needs: TransportNeeds) => Transport } = {
  stdio: (spec, needs) => stdioTransport(spec, needs.stderr, needs.groups),
  http: (spec, needs) =>
    new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
      fetch: signed(
        needs.signIn,
        cappedFetch({ answerBytes: MAX_ANSWER_BYTES, eventBytes: MAX_EVENT_BYTES, eventTooLarge: () => eventTooLarge(MAX_EVENT_BYTES) }),
      ),
    }),
  // Legacy SSE answers every request on its one event stream: an event there is an answer, and is held to an answer's limit.
  sse: (spec, needs) =>
    new SSEClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
      fetch: signed(
        needs.signIn,
        cappedFetch({ answerBytes: MAX_ANSWER_BYTES, eventBytes: MAX_ANSWER_BYTES, eventTooLarge: () => answerTooLarge(MAX_ANSWER_BYTES) }),
      ),
    }),
};

export function openTransport(spec: McpSpec, needs: TransportNeeds): Transport {
  // TypeScript cannot correlate spec.kind with its opener's parameter; the table's type checks each row.
  return (OPENERS[spec.kind] as (spec: McpSpec, needs: TransportNeeds) => Transport)(spec, needs);
}

function signed(signIn: TokenSigner | undefined, inner: FetchLike): FetchLike {
  return signIn ? signIn.fetch(inner) : inner;
}
