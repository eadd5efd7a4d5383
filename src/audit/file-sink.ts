/**
 * The audit trail as a JSON-lines file (0600 in a 0700 folder), rotated by
 * size: a batch that would take it past `maxBytes` first renames it to
 * `<file>.1` (`.1` to `.2`, and so on; past `keep` the oldest goes). Each
 * batch is opened, appended with O_APPEND in one write and closed, so
 * several processes on one config (a server and `metatools run`) add whole
 * lines, and one that rotated is followed by the others at their next batch
 * (a process writing as another rotates finishes its batch in `.1`). One
 * rotates at a time, under `<file>.lock`.
 *
 * The file is never written through a link: it is opened with O_NOFOLLOW
 * (a symlink planted at its name is refused, ELOOP), O_NONBLOCK (a FIFO
 * cannot hold the writer), and must then be a regular file of this user
 * with no other name (a hard link). Rotation renames names, which moves a
 * link planted at `<file>.N` instead of writing through it.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import type { AuditSink } from "./log.js";
import { parseAuditLine, type AuditEntry } from "./record.js";

const NOFOLLOW = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;
const READ = constants.O_RDONLY | NOFOLLOW;

export interface FileLimits {
  maxBytes: number;
  keep: number;
}

export class AuditFileSink implements AuditSink {
  private folderMade = false;

  constructor(
    readonly file: string,
    private readonly limits: FileLimits,
  ) {}

  get where(): string {
    return this.file;
  }

  async append(lines: readonly string[]): Promise<void> {
    const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(""));
    if (!this.folderMade) {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      this.folderMade = true;
    }
    let handle: FileHandle | undefined = await openChecked(this.file, APPEND);
    try {
      const { size, ino } = await handle.stat();
      if (size > 0 && size + bytes.byteLength > this.limits.maxBytes) {
        await handle.close();
        handle = undefined;
        await this.rotate(ino);
        handle = await openChecked(this.file, APPEND);
      }
      for (let at = 0; at < bytes.byteLength;) at += (await handle.write(bytes, at, bytes.byteLength - at)).bytesWritten;
    } finally {
      await handle?.close();
    }
  }

  async recent(count: number, accept: (entry: AuditEntry) => boolean): Promise<{ entries: AuditEntry[]; skipped: number }> {
    const entries: AuditEntry[] = [];
    let skipped = 0;
    // Newest first: the file, then .1, .2 …; stop as soon as enough are found.
    for (let i = 0; i <= this.limits.keep && entries.length < count; i++) {
      const text = await readChecked(i ? `${this.file}.${i}` : this.file);
      if (text === undefined) continue;
      const lines = text.split("\n");
      for (let j = lines.length - 1; j >= 0 && entries.length < count; j--) {
        if (!lines[j]) continue;
        const entry = parseAuditLine(lines[j]!);
        if (!entry) skipped++;
        else if (accept(entry)) entries.push(entry);
      }
    }
    return { entries: entries.reverse(), skipped };
  }

  async close(): Promise<void> {}

  /**
   * Shifts the rotated files by one and the file to `.1`, unless another process rotated it since this one opened it
   * (`ino`) or is rotating it now (it holds `<file>.lock`): two rotations at once would shift a file twice.
   */
  private async rotate(ino: number): Promise<void> {
    const lock = `${this.file}.lock`;
    if (!(await takeLock(lock))) return;
    try {
      const now = await lstat(this.file).catch(() => undefined);
      if (now?.ino !== ino) return;
      if (this.limits.keep === 0) return await unlink(this.file).catch(ignoreMissing);
      for (let i = this.limits.keep - 1; i >= 1; i--) await rename(`${this.file}.${i}`, `${this.file}.${i + 1}`).catch(ignoreMissing);
      await rename(this.file, `${this.file}.1`).catch(ignoreMissing);
    } finally {
      await unlink(lock).catch(() => {});
    }
  }
}

/** Opens `file` without following a link or waiting on a FIFO; it must be a regular file of this user, with one name. */
async function openChecked(file: string, flags: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, flags, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new Error(`${file} is a symbolic link: refused (the audit trail is never written or read through a link)`);
    if (code === "ENXIO") throw new Error(`${file} is not a regular file: refused`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    const uid = process.getuid?.();
    if (!stat.isFile()) throw new Error(`${file} is not a regular file: refused`);
    if (stat.nlink > 1) throw new Error(`${file} has another name (a hard link): refused`);
    if (uid !== undefined && stat.uid !== uid) throw new Error(`${file} belongs to another user: refused`);
    // A file made before (or by hand) with looser rights is narrowed: records say who called what.
    if (stat.mode & 0o077 && flags & constants.O_WRONLY) await handle.chmod(0o600);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The file's text, or undefined when it does not exist. */
async function readChecked(file: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await openChecked(file, READ);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** A lock older than this was left by a process that died while rotating: it is taken over. */
const STALE_LOCK_MS = 10_000;

/** Creates `lock` exclusively (never through a link); false when another process holds it. */
async function takeLock(lock: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await (await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600)).close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const held = await lstat(lock).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs < STALE_LOCK_MS) return false;
      await unlink(lock).catch(() => {});
    }
  }
  return false;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
