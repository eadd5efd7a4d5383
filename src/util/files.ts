import { chmodSync, renameSync, unlinkSync, writeFileSync } from "node:fs";

/**
 * Writes `file` whole: to a temporary file beside it, then renamed over it,
 * so a reader never sees half a file. With `mode`, the temporary file has
 * that mode before any byte is written (a secret is never readable by others,
 * even for a moment, even over an old file with looser rights).
 */
export function writeFileAtomic(file: string, text: string | Uint8Array, mode?: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, mode === undefined ? undefined : { mode });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (error) {
    // A failed write leaves nothing behind (a full disk, a read-only folder).
    try {
      unlinkSync(temp);
    } catch {
      // Never created.
    }
    throw error;
  }
}
