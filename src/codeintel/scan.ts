/**
 * Reads many files for one call: walks the target, reads text files a few
 * at a time (so the event loop stays responsive and a cancelled call stops
 * early), skips binary and oversized files, and counts everything it skips.
 */
import { open, stat } from "node:fs/promises";
import { walk, WorkMeter, type WalkEntry } from "./walk.js";
import type { Target, Workspace } from "./workspace.js";

const CONCURRENCY = 16;
/** Bytes sniffed for a NUL, the way git and ripgrep tell binary files. */
const SNIFF_BYTES = 8000;

export interface FileInfo {
  entry: WalkEntry;
  size: number;
  mtimeMs: number;
}

/** What a scan left out, and why; reported by tools so nothing is cut silently. */
export interface ScanReport {
  files: number;
  skipped: { binary: number; too_large: number; secret: number; filtered: number };
  bounded?: string;
  elapsed_ms: number;
}

export interface ScanRequest<R> {
  start: Target;
  glob?: string;
  signal?: AbortSignal;
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
  const skipped = { binary: 0, too_large: 0, secret: 0, filtered: 0 };
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
        const text = await readText(entry.abs, info.size);
        meter.bytes += info.size;
        if (text === undefined) skipped.binary++;
        return text;
      };
      slots[index] = await request.each(info, read);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, entries.length) }, worker));
  skipped.secret = meter.secret;
  const results = slots.filter((r): r is R => r !== undefined);
  return { results, report: { files: entries.length, skipped, ...(meter.bounded ? { bounded: meter.bounded } : {}), elapsed_ms: meter.elapsedMs } };
}

/** The file's text, or undefined when it looks binary (a NUL in its first 8000 bytes). */
export async function readText(abs: string, size: number): Promise<string | undefined> {
  const handle = await open(abs, "r");
  try {
    const buffer = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await handle.read(buffer, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const bytes = buffer.subarray(0, read);
    if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return undefined;
    return bytes.toString("utf8");
  } finally {
    await handle.close();
  }
}

/** What a scan skipped, in one sentence, or undefined when it skipped nothing worth saying. */
export function describeSkips(report: ScanReport, maxFileBytes: number): string | undefined {
  const parts: string[] = [];
  if (report.skipped.too_large) parts.push(`${report.skipped.too_large} files over ${Math.round(maxFileBytes / 1024)} KiB`);
  if (report.skipped.binary) parts.push(`${report.skipped.binary} binary files`);
  if (report.skipped.secret) parts.push(`${report.skipped.secret} secret files (.env, keys)`);
  const text = parts.length ? `Skipped ${parts.join(", ")}.` : "";
  return [text, report.bounded ? `The scan ${report.bounded}; counts cover the files scanned. Narrow with path or glob.` : ""].filter(Boolean).join(" ") || undefined;
}
