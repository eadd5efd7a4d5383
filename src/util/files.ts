import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Create only: fail if the name exists (as a file, a folder or a symlink), and never follow a symlink. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Writes `file` whole: to a temporary file beside it, then renamed over it,
 * so a reader never sees half a file. The temporary file has a random name
 * and is created exclusively without following symlinks: someone who can
 * write in the folder cannot plant a link at the name and receive the bytes
 * (the lock file, snapshots, OAuth tokens). The rename replaces `file`
 * itself, so a symlink planted at `file` is replaced, never written through.
 * With `mode`, the temporary file has that mode before any byte is written
 * (a secret is never readable by others, even for a moment, even over an
 * old file with looser rights).
 */
export function writeFileAtomic(file: string, text: string | Uint8Array, mode?: number): void {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(8).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, CREATE_NEW, mode ?? 0o666);
    // The umask may have narrowed a requested mode; an explicit one is applied as asked.
    if (mode !== undefined) fchmodSync(fd, mode);
    const bytes = typeof text === "string" ? Buffer.from(text) : text;
    for (let at = 0; at < bytes.byteLength;) at += writeSync(fd, bytes, at, bytes.byteLength - at);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    // A failed write leaves nothing behind (a full disk, a read-only folder); an exclusive open that failed created nothing.
    if (fd !== undefined || !isCode(error, "EEXIST")) removeQuietly(temp);
    throw error;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created.
  }
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

/**
 * Appends `bytes` to `file`, creating it (with `mode`) when missing; a
 * symlink at `file` is refused (ELOOP), never written through.
 */
export function appendFileSafe(file: string, bytes: Uint8Array, mode = 0o644): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    for (let at = 0; at < bytes.byteLength;) at += writeSync(fd, bytes, at, bytes.byteLength - at);
  } finally {
    closeSync(fd);
  }
}
