/**
 * The answer `serve` gave a stdio client's `initialize`, kept per launch (the
 * package's version, the folder and the words it was started with,
 * METATOOLS_CONFIG) beside the hash of the config file it read. The next
 * launch replays it before the rest of metatools is loaded
 * (src/cli/quick-start.ts): a client that starts metatools at each of its
 * own starts has its handshake at once. A config that changed makes it stale.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "./files.js";

/** How metatools was started: two launches with the same words in the same folder read the same config. */
export interface Launch {
  version: string;
  cwd: string;
  argv: readonly string[];
  /** METATOOLS_CONFIG, which names the config when no flag does. */
  configEnv?: string;
}

export interface RememberedAnswer {
  /** The config file that launch read, and its bytes' hash. */
  config: string;
  configHash: string;
  /** The initialize result, by the protocol version the client asked for. */
  results: Record<string, Record<string, unknown>>;
  /** The result of the session's first tools/list. */
  toolsList?: Record<string, unknown>;
  /** What the instructions named as the namespaces (src/meta/instructions.ts namespacesLine): what a session answered so was told. */
  namespaces?: string;
}

/** Larger than any answer metatools writes: a file past it is not read. */
const MAX_FILE_BYTES = 256 * 1024;

export function answerFile(dir: string, launch: Launch): string {
  const key = createHash("sha256")
    .update(JSON.stringify([launch.version, launch.cwd, launch.argv, launch.configEnv ?? ""]))
    .digest("hex")
    .slice(0, 24);
  return join(dir, `${key}.json`);
}

/** The hash of a file's bytes; undefined when it cannot be read. */
export function fileHash(file: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
}

/** The answer kept for this launch, while its config file is as it was then; undefined otherwise (a first launch, a changed config, a damaged file). */
export function readAnswer(file: string): RememberedAnswer | undefined {
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return undefined;
    const kept = JSON.parse(readFileSync(file, "utf8")) as Partial<RememberedAnswer>;
    if (typeof kept.config !== "string" || typeof kept.configHash !== "string" || !kept.results || typeof kept.results !== "object") return undefined;
    if (fileHash(kept.config) !== kept.configHash) return undefined;
    return kept as RememberedAnswer;
  } catch {
    return undefined;
  }
}

/** Keeps the answer (atomically: a launch reading it meanwhile sees the old one or the new); false when it could not be written. */
export function keepAnswer(file: string, answer: RememberedAnswer): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, JSON.stringify(answer));
    return true;
  } catch {
    return false;
  }
}
