/**
 * The server under soak: a real `metatools serve --http` child from dist/,
 * with the everything and filesystem servers from npm and two churning
 * fixture backends (backend.ts), three bearer tokens, and a cache folder
 * and store of its own. Its log is read line by line (never kept whole)
 * for the errors it reports; stopping it measures the shutdown and looks
 * for backends left behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { CLI_ENTRY, PACKAGE_ROOT } from "../../util/package-root.js";
import { everythingServer } from "../exec.js";
import { resolvePackage } from "../tokens.js";
import { alive, descendants } from "./probe.js";

const BACKEND = join(PACKAGE_ROOT, "dist", "bench", "soak", "backend.js");
/** Three callers, so handles, cached results and sessions are kept apart by principal as in a team's deployment. */
export const TOKENS = ["soak-token-alpha-0123456789", "soak-token-bravo-0123456789", "soak-token-charlie-012345678"] as const;
export const STORE_PREFIX = "metatools";
/** The churning fixtures: tools renamed this often, and a crash about this often. */
export const RENAME_MS = 3000;
export const CRASH_MS = 30_000;

/**
 * Bounds set below their defaults, each reached in the run's first minute or two: a token's outputs (about 24 MB a minute
 * here; past its share its oldest go, as the replies say), the embedding cache (renamed tools are new texts, about 40 KB a
 * minute) and the lock file's pins of tools no longer listed (40 new names a minute).
 */
export const CAPS = { outputBytesPerToken: 16 << 20, embeddingCacheBytes: 64 << 10, unlistedPins: 20 };

export interface ServerPlan {
  dir: string;
  /** How long a handle lives, and a session may idle: short enough that both turn over within the run. */
  outputTtlMs: number;
  sessionIdleMs: number;
  store: "sqlite" | "memory";
}

export interface SoakServer {
  url: string;
  pid: number;
  /** Where the files the soak watches are. */
  files: { lock: string; embeddings: string; snapshots: string; store?: string };
  /** `metatools error:` lines so far, and the first one. */
  logErrors(): { count: number; first?: string };
  /** SIGTERM, then how long it took to exit, its exit code, and the processes it left running. Once: later calls get the same answer. */
  stop(): Promise<Shutdown>;
}

export interface Shutdown {
  exitCode: number | null;
  ms: number;
  orphans: number;
}

export async function startServer(plan: ServerPlan): Promise<SoakServer> {
  const everything = everythingServer();
  const filesystem = resolvePackage("@modelcontextprotocol/server-filesystem/dist/index.js");
  if (!everything || !filesystem)
    throw new Error("the soak needs @modelcontextprotocol/server-everything and server-filesystem (dev dependencies: run it from the repository)");
  const files = join(plan.dir, "files");
  mkdirSync(files, { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(files, `note-${i}.txt`), `note ${i}\n${"some text for the filesystem server\n".repeat(20 + i)}`);
  const cache = join(plan.dir, "cache");
  const store = plan.store === "sqlite" ? join(plan.dir, "store.db") : undefined;
  const config = join(plan.dir, "soak.json");
  const node = process.execPath;
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: node, args: [everything, "stdio"] },
        filesystem: { command: node, args: [filesystem, files] },
        churn: { command: node, args: [BACKEND, "--rename-ms", String(RENAME_MS)] },
        crashy: { command: node, args: [BACKEND, "--crash-ms", String(CRASH_MS)] },
      },
      metatools: {
        code: { enabled: false },
        store: { url: store ? `sqlite://${store}` : "memory", prefix: STORE_PREFIX },
        // Caps whose defaults minutes of churn could not fill are shrunk (CAPS), so a bound that holds shows as level within the run.
        outputs: { ttlMs: plan.outputTtlMs, principalBytes: CAPS.outputBytesPerToken },
        search: { embeddingCacheMaxBytes: CAPS.embeddingCacheBytes },
        security: { maxUnlistedPins: CAPS.unlistedPins },
        // The rate limit is lifted: the soak measures what the server keeps, not the limiter.
        http: { rateLimit: { perMinute: 10_000_000 }, sessionIdleMs: plan.sessionIdleMs },
      },
    }),
  );
  // --expose-gc lets /healthz?gc=1 read the live heap after a full collection, so garbage is not mistaken for growth.
  const child = spawn(node, ["--expose-gc", CLI_ENTRY, "serve", "--http", "0", "--config", config], {
    env: { ...process.env, METATOOLS_TOKENS: TOKENS.join(","), XDG_CACHE_HOME: cache },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const errors = { count: 0, first: undefined as string | undefined };
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const tail: string[] = [];
    createInterface({ input: child.stderr! }).on("line", (line) => {
      if (tail.length < 50) tail.push(line);
      const match = /serving MCP on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
      if (line.startsWith("metatools error:")) {
        errors.count++;
        errors.first ??= line.slice(0, 300);
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${tail.join("\n")}`)));
  });
  let stopped: Promise<Shutdown> | undefined;
  return {
    url,
    pid: child.pid!,
    files: {
      lock: join(plan.dir, "metatools.lock.json"),
      embeddings: join(cache, "metatools", "embeddings"),
      snapshots: join(cache, "metatools", "snapshots"),
      ...(store ? { store } : {}),
    },
    logErrors: () => ({ ...errors }),
    stop: () => (stopped ??= stop(child, exited)),
  };
}

/** Ready once /readyz says so (every backend connected or failed, the index built), or after `ms` whatever it says. */
export async function waitReady(url: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await fetch(url.replace(/\/mcp$/, "/readyz")).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<Shutdown> {
  const below = descendants(child.pid!);
  const started = performance.now();
  child.kill("SIGTERM");
  // The server promises to be gone within its grace period + 2.5 s; past 15 s it is killed, and the code says so.
  const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const exitCode = await exited;
  clearTimeout(killer);
  const ms = performance.now() - started;
  // Backends get 2 s to stop after the server closes them; a moment more, then whatever still runs was left behind.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const orphans = below.filter((pid) => alive(pid));
  for (const pid of orphans) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone between the check and the kill.
    }
  }
  return { exitCode, ms, orphans: orphans.length };
}
