/**
 * `serve` on stdio answers its client's `initialize` before loading the rest
 * of metatools, from the answer the same launch gave last time
 * (src/util/remembered-answer.ts): loading takes most of a start, and
 * clients launch metatools at each of theirs. The bytes read meanwhile are
 * handed to the server (serving.ts), which reads the same `initialize`,
 * keeps its own answer to it from reaching the client, and keeps that answer
 * for the next launch. Nothing here imports more than Node and util/.
 */
import { writeSync } from "node:fs";
import { join } from "node:path";
import { cacheHome } from "../util/cache-home.js";
import { answerFile, readAnswer } from "../util/remembered-answer.js";
import { packageVersion } from "../util/version.js";

export interface QuickStart {
  /** Where this launch's answer is kept. */
  file: string;
  /** What was read from stdin before the server took it over: passed to it first. */
  prefix: Buffer;
  /** The requests answered here (the `initialize`, and the `tools/list` if it came at once), and the namespaces the instructions named. */
  answered?: { ids: (string | number)[]; namespaces?: string };
}

/** How long the client's first message is waited for here; past it, the server reads it itself. */
const FIRST_MESSAGE_MS = 250;
/** How long the tool list is waited for once the handshake is answered (a client asks at once): past it, the server answers it. */
const TOOLS_LIST_MS = 40;
/** Far more than any `initialize`: past it, the server reads the rest. */
const MAX_PREFIX_BYTES = 1 << 20;

/**
 * What quickStart did, kept on the global object: the bin's starter runs
 * this file as compiled (before the bundle is read), and serve reads it
 * from the bundle's own copy.
 */
const STARTED = Symbol.for("metatools.quickStart");
const slot = globalThis as { [STARTED]?: QuickStart };

/** What quickStart did, for `serve` to take over (undefined when it did not run: not stdio, or metatools used as a library). */
export function quickStarted(): QuickStart | undefined {
  return slot[STARTED];
}

/** `argv`: serve's own words. Answers the client's `initialize` from this launch's kept answer, when there is one and the config is as it was. */
export async function quickStart(argv: readonly string[]): Promise<void> {
  // Once per process: the starter ran it, and main, which runs it when started without the starter, finds it done.
  if (slot[STARTED] || argv.some((word) => word === "--http" || word.startsWith("--http="))) return;
  const launch = { version: packageVersion(), cwd: process.cwd(), argv, ...(process.env.METATOOLS_CONFIG ? { configEnv: process.env.METATOOLS_CONFIG } : {}) };
  const quick: QuickStart = { file: answerFile(join(cacheHome(), "answers"), launch), prefix: Buffer.alloc(0) };
  slot[STARTED] = quick;
  const kept = readAnswer(quick.file);
  if (!kept) return;
  quick.prefix = await readUntil(process.stdin, FIRST_MESSAGE_MS, (bytes) => bytes.includes(10));
  const [first] = messages(quick.prefix);
  const { id } = first ?? {};
  if (first?.method !== "initialize" || (typeof id !== "string" && typeof id !== "number")) return;
  const result = typeof first.params?.protocolVersion === "string" ? kept.results[first.params.protocolVersion] : undefined;
  if (!result || !answer(id, result)) return;
  quick.answered = { ids: [id], ...(kept.namespaces ? { namespaces: kept.namespaces } : {}) };
  if (!kept.toolsList) return;
  // The client asks for the tools once answered: the list is known too.
  const isAsked = (bytes: Buffer) => messages(bytes).some((m) => m.method === "tools/list");
  if (!isAsked(quick.prefix))
    quick.prefix = Buffer.concat([quick.prefix, await readUntil(process.stdin, TOOLS_LIST_MS, (more) => isAsked(Buffer.concat([quick.prefix, more])))]);
  const asked = messages(quick.prefix).find((m) => m.method === "tools/list");
  if (asked && (typeof asked.id === "string" || typeof asked.id === "number") && answer(asked.id, kept.toolsList)) quick.answered.ids.push(asked.id);
}

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { protocolVersion?: unknown } };

/** The whole JSON-RPC messages in `bytes` (its complete lines), skipping any that do not parse. */
function messages(bytes: Buffer): Message[] {
  const out: Message[] = [];
  let from = 0;
  for (let end = bytes.indexOf(10); end >= 0; from = end + 1, end = bytes.indexOf(10, from)) {
    try {
      const message = JSON.parse(bytes.subarray(from, end).toString("utf8")) as Message;
      if (message && message.jsonrpc === "2.0") out.push(message);
    } catch {
      // The server reads it again, and answers it as it answers any malformed line.
    }
  }
  return out;
}

/** Writes the answer to request `id`; false when stdout would not take it. */
function answer(id: string | number, result: Record<string, unknown>): boolean {
  try {
    // The protocol's own channel, with metatools' own answer of last time: nothing from outside is in it.
    writeSync(1, `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
    return true;
  } catch {
    return false;
  }
}

/** stdin's bytes until `enough` says so (or `ms`, or the end, or MAX_PREFIX_BYTES), then paused: what follows stays buffered for the next reader. */
function readUntil(stdin: NodeJS.ReadStream, ms: number, enough: (bytes: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      stdin.off("data", onData);
      stdin.off("end", done);
      stdin.pause();
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= MAX_PREFIX_BYTES || enough(Buffer.concat(chunks))) done();
    };
    const timer = setTimeout(done, ms);
    stdin.on("data", onData);
    stdin.once("end", done);
    // Paused by an earlier read: a listener alone does not resume it.
    stdin.resume();
  });
}
