/**
 * What the soak reads of the server from outside, without asking it: from
 * /proc (Linux) its resident memory, open file descriptors, threads and
 * descendant processes; from disk the files it keeps growing or rewriting
 * (lock file, embedding cache, tool snapshot); from the SQLite store the
 * output handles it holds. Heap and sessions come from `/healthz` (run.ts).
 * Each reading is undefined where it cannot be had (another OS, no file yet).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { importExternal } from "../../util/import-external.js";

export interface ProcessReading {
  rssMb?: number;
  fds?: number;
  threads?: number;
  /** Processes below the server (backends and what they start), zombies included: a reaped crash leaves none. */
  children?: number;
}

export function readProcess(pid: number): ProcessReading {
  const status = readText(`/proc/${pid}/status`);
  if (status === undefined) return {};
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status);
    return match ? Number(match[1]) : undefined;
  };
  const rssKb = field("VmRSS");
  return {
    ...(rssKb !== undefined ? { rssMb: rssKb / 1024 } : {}),
    ...count("fds", () => readdirSync(`/proc/${pid}/fd`).length),
    ...(field("Threads") !== undefined ? { threads: field("Threads") } : {}),
    children: descendants(pid).length,
  };
}

/** Every process whose parent chain leads to `pid`, from each process's /proc/<pid>/stat. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of safeList("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readText(`/proc/${name}/stat`);
    // The command name is in parentheses and may hold spaces or parentheses: the fields after the last ")" are fixed.
    const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields?.[1]) parents.set(Number(name), Number(fields[1]));
  }
  const found: number[] = [];
  const below = new Set([pid]);
  // Parents are usually listed before their children, but not always: repeat until nothing new is found.
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents) {
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        found.push(child);
        grew = true;
      }
    }
  }
  return found;
}

/** True while `pid` is a live process (a zombie counts as gone: it holds nothing but its entry). */
export function alive(pid: number): boolean {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return false;
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

/** Bytes of a file, or of every file directly in a folder; undefined when there is none yet. */
export function bytesAt(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return safeList(path).reduce((sum, name) => sum + (statSync(join(path, name), { throwIfNoEntry: false })?.size ?? 0), 0);
}

export interface StoreReading {
  /** Output handles held, expired ones included until the store drops them. */
  outEntries: number;
  /** The database file and its write-ahead log: what the outputs, cached results and learned terms take on disk. */
  fileBytes: number;
}

/** An optional package (the tests install it, `npm ci` does not), named by a variable so that building metatools does not need it. */
const SQLITE_PACKAGE = "@keyv/sqlite";
interface SqliteModule {
  default: new (options: { uri: string; busyTimeout: number }) => {
    query(sql: string, ...parameters: unknown[]): Promise<unknown>;
    disconnect(): Promise<void>;
  };
}

/**
 * The SQLite store's output handles, counted from the bench process. Only
 * keys are read (no value pages): a long read would hold SQLite's lock and
 * stall the server's writes, and the soak would measure itself.
 */
export async function readSqliteStore(file: string, prefix: string): Promise<StoreReading | undefined> {
  if (!existsSync(file)) return undefined;
  const { default: KeyvSqlite } = (await importExternal(SQLITE_PACKAGE)) as SqliteModule;
  const db = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5000 });
  try {
    const rows = (await db.query("SELECT count(*) AS entries FROM keyv WHERE key LIKE ?", `${prefix}:out:%`)) as { entries: number }[];
    const fileBytes = (bytesAt(file) ?? 0) + (bytesAt(`${file}-wal`) ?? 0);
    return { outEntries: rows[0]?.entries ?? 0, fileBytes };
  } finally {
    await db.disconnect().catch(() => {});
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function count<K extends string>(key: K, read: () => number): Partial<Record<K, number>> {
  try {
    return { [key]: read() } as Record<K, number>;
  } catch {
    return {};
  }
}
