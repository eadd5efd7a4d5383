/**
 * Where sign-ins to remote backends are kept, one record per backend: the
 * `Credentials` interface, and its default, a JSON file readable by its
 * owner alone (the shared store, for replicas, is shared-credentials.ts).
 * Both are watched, so a running server picks up a sign-in made by
 * `metatools auth login`.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, unwatchFile, watchFile } from "node:fs";
import { dirname } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { MetatoolsError } from "../util/errors.js";
import { writeFileAtomic } from "../util/files.js";

/** One backend's sign-in. */
export interface SignIn {
  /** The backend URL it was made for: its tokens are sent nowhere else. */
  url: string;
  /** The resource indicator (RFC 8707) the tokens were issued for. */
  resource?: string;
  discovery?: OAuthDiscoveryState;
  /** A client metatools registered (dynamic registration) or named by URL (metadata document); a pre-registered one stays in the config. */
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires, in ms since the epoch, from `expires_in` as received. */
  expiresAt?: number;
  /** A scope a call was refused for (403 insufficient_scope): the next sign-in asks for it. */
  requiredScope?: string;
  /** Set by every write; a change tells a running server to look again. */
  updatedAt: number;
}

export interface Credentials {
  /** Where they are, for messages. */
  readonly where: string;
  read(namespace: string): Promise<SignIn | undefined>;
  /** Reads, changes and writes one record as one step; `undefined` from `change` deletes it. */
  update(namespace: string, change: (current: SignIn | undefined) => SignIn | undefined): Promise<SignIn | undefined>;
  /**
   * Runs `work` as the only writer of the namespace's record across
   * processes where the storage can promise it (the file: its lock, held
   * for up to `holdMs`), so two servers never spend one refresh token.
   * `work` reads and writes through the view it is given.
   */
  exclusive<T>(namespace: string, holdMs: number, work: (view: RecordView) => Promise<T>): Promise<T>;
  /** Calls `listener` when the namespace's record changes (written by this process or another); returns the unwatch. */
  watch(namespace: string, listener: () => void): () => void;
  close(): Promise<void>;
}

/** One record, read and written inside an exclusive section. */
export interface RecordView {
  read(): Promise<SignIn | undefined>;
  write(change: (current: SignIn | undefined) => SignIn | undefined): Promise<SignIn | undefined>;
}

interface FileData {
  version: 1;
  backends: Record<string, SignIn>;
}

/** Longest a write waits for the lock: past a refresh that holds it (signer.ts, 15 s at most). */
const LOCK_WAIT_MS = 20_000;
/** A lock older than this was left by a process that died holding it (longer than any holder keeps it). */
const LOCK_STALE_MS = 60_000;
const WATCH_INTERVAL_MS = 1000;

/** A JSON file, mode 0600, written whole and renamed into place under a lock file, so two processes never interleave. */
export class FileCredentials implements Credentials {
  private cached: { stamp: string; data: FileData } | undefined;
  private readonly listeners = new Map<string, Set<() => void>>();
  private lastSeen = new Map<string, number | undefined>();

  constructor(readonly where: string) {}

  async read(namespace: string): Promise<SignIn | undefined> {
    return this.load().backends[namespace];
  }

  async update(namespace: string, change: (current: SignIn | undefined) => SignIn | undefined): Promise<SignIn | undefined> {
    return this.locked(LOCK_WAIT_MS, async () => this.change(namespace, change));
  }

  exclusive<T>(namespace: string, holdMs: number, work: (view: RecordView) => Promise<T>): Promise<T> {
    return this.locked(holdMs + LOCK_WAIT_MS, () =>
      work({
        read: async () => {
          this.cached = undefined;
          return this.load().backends[namespace];
        },
        write: async (change) => this.change(namespace, change),
      }),
    );
  }

  watch(namespace: string, listener: () => void): () => void {
    let set = this.listeners.get(namespace);
    if (!set) this.listeners.set(namespace, (set = new Set()));
    if (!this.lastSeen.has(namespace)) this.lastSeen.set(namespace, this.peek(namespace));
    set.add(listener);
    if (this.listeners.size === 1 && set.size === 1) watchFile(this.where, { interval: WATCH_INTERVAL_MS, persistent: false }, this.changed);
    return () => {
      set.delete(listener);
      if (!set.size) this.listeners.delete(namespace);
      if (!this.listeners.size) unwatchFile(this.where, this.changed);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    unwatchFile(this.where, this.changed);
  }

  private readonly changed = (): void => {
    let data: FileData;
    try {
      data = this.load();
    } catch {
      return; // Half-written by hand: the next change is looked at again.
    }
    for (const [namespace, set] of this.listeners) {
      const now = data.backends[namespace]?.updatedAt;
      if (now === this.lastSeen.get(namespace)) continue;
      this.lastSeen.set(namespace, now);
      for (const listener of [...set]) listener();
    }
  };

  /** Read, change and write one record; the caller holds the lock. */
  private change(namespace: string, change: (current: SignIn | undefined) => SignIn | undefined): SignIn | undefined {
    this.cached = undefined;
    const data = this.load();
    const next = change(data.backends[namespace]);
    if (next) data.backends[namespace] = { ...next, updatedAt: Math.max(Date.now(), (data.backends[namespace]?.updatedAt ?? 0) + 1) };
    else delete data.backends[namespace];
    this.write(data);
    return data.backends[namespace];
  }

  /** The record's stamp, or undefined when it cannot be read now (a file being edited by hand is looked at again at its next change). */
  private peek(namespace: string): number | undefined {
    try {
      return this.load().backends[namespace]?.updatedAt;
    } catch {
      return undefined;
    }
  }

  /** The file's content, parsed again only when it changed on disk. */
  private load(): FileData {
    let stamp: string;
    try {
      const stat = statSync(this.where);
      stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      // Tokens are secrets: a file others can read is narrowed to its owner.
      if (stat.mode & 0o077) chmodSync(this.where, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, backends: {} };
      throw new MetatoolsError("auth_file", `the token file ${this.where} cannot be read: ${(error as Error).message}`);
    }
    if (this.cached?.stamp === stamp) return this.cached.data;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.where, "utf8"));
    } catch (error) {
      throw new MetatoolsError(
        "auth_file",
        `the token file ${this.where} is not valid JSON (${(error as Error).message}): delete it and sign in again with \`metatools auth login\``,
      );
    }
    const backends = (data as FileData | null)?.backends;
    if (!backends || typeof backends !== "object")
      throw new MetatoolsError("auth_file", `the token file ${this.where} has no "backends" object: delete it and sign in again with \`metatools auth login\``);
    this.cached = { stamp, data: { version: 1, backends } };
    return this.cached.data;
  }

  private write(data: FileData): void {
    try {
      mkdirSync(dirname(this.where), { recursive: true });
      writeFileAtomic(this.where, `${JSON.stringify(data, null, 2)}\n`, 0o600);
    } catch (error) {
      throw new MetatoolsError("auth_file", `the token file ${this.where} cannot be written: ${(error as Error).message}`);
    }
  }

  private async locked<T>(waitMs: number, work: () => Promise<T>): Promise<T> {
    const lock = `${this.where}.lock`;
    mkdirSync(dirname(this.where), { recursive: true });
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        closeSync(openSync(lock, "wx", 0o600));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST")
          throw new MetatoolsError("auth_file", `cannot lock the token file ${this.where}: ${(error as Error).message}`);
        if (lockAge(lock) > LOCK_STALE_MS) {
          try {
            unlinkSync(lock);
          } catch {
            // Another process took it away first.
          }
          continue;
        }
        if (Date.now() > deadline)
          throw new MetatoolsError(
            "auth_file",
            `the token file ${this.where} stayed locked for ${Math.round(waitMs / 1000)} s (${lock}); if no metatools is signing in, delete the lock`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    try {
      return await work();
    } finally {
      try {
        unlinkSync(lock);
      } catch {
        // Removed as stale by another process: nothing to undo.
      }
    }
  }
}

function lockAge(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
