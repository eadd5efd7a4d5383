/**
 * Reads many files for one call: walks the target, reads text files a few
 * at a time (so the event loop stays responsive and a cancelled call stops
 * early), skips binary, oversized, special and hard-linked files, and counts
 * everything it skips.
 */
import { stat } from "node:fs/promises";
import { isReadRefusal, readText, type ReadPolicy } from "./files.js";
import { walk, WorkMeter, type WalkEntry } from "./walk.js";
import type { Target, Workspace } from "./workspace.js";

const CONCURRENCY = 16;

export interface FileInfo {
  entry: WalkEntry;
  size: number;
  mtimeMs: number;
}

/** What a scan left out, and why; reported by tools so nothing is cut silently. */
export interface ScanReport {
  files: number;
  skipped: { binary: number; too_large: number; secret: number; special: number; hard_link: number; filtered: number };
  bounded?: string;
  elapsed_ms: number;
}

export interface ScanRequest<R> {
  start: Target;
  glob?: string;
  signal?: AbortSignal;
  /** How files are read; default the workspace's (`ws.searchRead` for searches). */
  policy?: ReadPolicy;
  /** Cheap test before reading: false skips the file (counted as filtered). */
  accept?: (entry: WalkEntry) => boolean;
  /**
   * Called per file in walk order's neighbourhood; results come back in walk
   * order. `read` reads the text on demand (undefined when binary or too big),
   * so callers with a cache can answer from `info` alone.
   */
  each: (info: FileInfo, read: () => Promise<string | undefined>) => Promise<R | undefined>;
}

export async function scan<R>(ws: Workspace, request: ScanRequest<R>): Promise<{ results: R[]; report: ScanReport }> {
  const meter = new WorkMeter(ws.limits, request.signal);
  const entries = (await walk(ws, { start: request.start, glob: request.glob }, meter)).filter((e) => e.kind === "file");
  const skipped = { binary: 0, too_large: 0, secret: 0, special: 0, hard_link: 0, filtered: 0 };
  const slots: (R | undefined)[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length && meter.ok()) {
      const index = next++;
      const entry = entries[index]!;
      if (request.accept && !request.accept(entry)) {
        skipped.filtered++;
        continue;
      }
      let info: FileInfo;
      try {
        const stats = await stat(entry.abs);
        info = { entry, size: stats.size, mtimeMs: stats.mtimeMs };
      } catch {
        continue;
      }
      const read = async () => {
        if (info.size > ws.limits.maxFileBytes) {
          skipped.too_large++;
          return undefined;
        }
        const file = await readText(entry.abs, request.policy ?? ws.read);
        if (!isReadRefusal(file)) {
          meter.bytes += file.size;
          return file.text;
        }
        // A file that changed or went away while being opened is not counted: it is not there to count.
        if (file !== "unreadable" && file !== "outside_root") skipped[file]++;
        return undefined;
      };
      slots[index] = await request.each(info, read);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, entries.length) }, worker));
  skipped.secret = meter.secret;
  skipped.special = meter.special;
  const results = slots.filter((r): r is R => r !== undefined);
  return { results, report: { files: entries.length, skipped, ...(meter.bounded ? { bounded: meter.bounded } : {}), elapsed_ms: meter.elapsedMs } };
}

/** What a scan skipped, in one sentence, or undefined when it skipped nothing worth saying. */
export function describeSkips(report: ScanReport, maxFileBytes: number): string | undefined {
  const parts: string[] = [];
  if (report.skipped.too_large) parts.push(`${report.skipped.too_large} files over ${Math.round(maxFileBytes / 1024)} KiB`);
  if (report.skipped.binary) parts.push(`${report.skipped.binary} binary files`);
  if (report.skipped.secret) parts.push(`${report.skipped.secret} secret files (.env, keys)`);
  if (report.skipped.special) parts.push(`${report.skipped.special} pipes, sockets or devices`);
  if (report.skipped.hard_link) parts.push(`${report.skipped.hard_link} hard-linked files`);
  const text = parts.length ? `Skipped ${parts.join(", ")}.` : "";
  return (
    [text, report.bounded ? `The scan ${report.bounded}; counts cover the files scanned. Narrow with path or glob.` : ""].filter(Boolean).join(" ") || undefined
  );
}
