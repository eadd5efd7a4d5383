/**
 * How the code tools open files. A path inside the root can still be a trap:
 * a named pipe blocks `open()` and then every read forever (each one holds a
 * libuv thread, and four of them freeze every file tool), a device never
 * ends, a hard link can give a second name to a file outside the root or to
 * `.env`, and a huge one-line file overflows any string built from it. So
 * files are opened non-blocking and without following a final symlink,
 * checked on the open descriptor (regular file, one link), read under a byte
 * limit, and judged binary by their content.
 */
import { constants } from "node:fs";
import { open, readlink, type FileHandle } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";

/** Why a file was not read. */
export type ReadRefusal = "special" | "hard_link" | "too_large" | "binary" | "unreadable" | "outside_root";

export interface ReadPolicy {
  /** Files over this many bytes are not read whole. */
  maxBytes: number;
  /** Whether a file with more than one name (a hard link) may be read: its other name may be outside the root. */
  allowHardLink: (abs: string) => boolean;
  /**
   * The root every opened file must be inside, checked on the open
   * descriptor (Linux): a directory swapped for a symlink between the
   * path's check and its open cannot lead out.
   */
  root?: string;
  /**
   * Applied to the text as soon as it is decoded: a secret from the
   * environment that sits in a project file is gone before any tool cuts a
   * line or a window out of it.
   */
  redact?: (text: string) => string;
}

export interface OpenFile {
  handle: FileHandle;
  size: number;
  mtimeMs: number;
}

// O_NONBLOCK makes opening a FIFO return at once (Windows has neither flag, nor FIFOs to fear).
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** Opens a regular, singly linked file for reading, or says why not. Never blocks. */
export async function openRegular(abs: string, policy: Pick<ReadPolicy, "allowHardLink" | "root">): Promise<OpenFile | ReadRefusal> {
  let handle: FileHandle;
  try {
    handle = await open(abs, FLAGS);
  } catch {
    return "unreadable";
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return refuse(handle, "special");
    if (stats.nlink > 1 && !policy.allowHardLink(abs)) return refuse(handle, "hard_link");
    if (policy.root !== undefined && process.platform === "linux") {
      const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
      if (opened !== undefined && !isInside(policy.root, opened)) return refuse(handle, "outside_root");
    }
    return { handle, size: stats.size, mtimeMs: stats.mtimeMs };
  } catch {
    return refuse(handle, "unreadable");
  }
}

async function refuse(handle: FileHandle, reason: ReadRefusal): Promise<ReadRefusal> {
  await handle.close().catch(() => {});
  return reason;
}

export interface TextFile {
  text: string;
  size: number;
  mtimeMs: number;
}

/** The whole text of a file, or why it was not read. */
export async function readText(abs: string, policy: ReadPolicy): Promise<TextFile | ReadRefusal> {
  const file = await openRegular(abs, policy);
  if (typeof file === "string") return file;
  try {
    if (file.size > policy.maxBytes) return "too_large";
    // One byte more than the limit: a file that grew since stat() is caught, not read past the limit.
    const buffer = Buffer.allocUnsafe(Math.min(policy.maxBytes, file.size) + 1);
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await file.handle.read(buffer, read, buffer.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    if (read > policy.maxBytes) return "too_large";
    const bytes = buffer.subarray(0, read);
    if (looksBinary(bytes)) return "binary";
    const text = bytes.toString("utf8");
    return { text: policy.redact ? policy.redact(text) : text, size: read, mtimeMs: file.mtimeMs };
  } catch {
    return "unreadable";
  } finally {
    await file.handle.close().catch(() => {});
  }
}

/** True when `abs` is `root` or below it. */
export function isInside(root: string, abs: string): boolean {
  const rel = relative(root, abs);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

export function isReadRefusal(value: unknown): value is ReadRefusal {
  return typeof value === "string";
}

/** Bytes of each sample judged for binary content. */
const SAMPLE = 8192;

/**
 * True for content that is not text: a NUL anywhere (as git and ripgrep
 * judge), or, in samples from the start, middle and end, more than 30% of
 * bytes that are control characters or not valid UTF-8. Text in a legacy
 * 8-bit encoding (a few accented letters) stays text; random or compressed
 * data does not: it is mostly invalid UTF-8, with or without NULs.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return true;
  const samples = bytes.length <= 3 * SAMPLE ? [bytes] : [0, (bytes.length - SAMPLE) >> 1, bytes.length - SAMPLE].map((at) => bytes.subarray(at, at + SAMPLE));
  return samples.some((sample) => suspicious(sample) > 0.3);
}

/** The share of bytes that are control characters (tab, newlines, form feed and escape aside) or break UTF-8. */
export function suspicious(bytes: Uint8Array): number {
  if (!bytes.length) return 0;
  let bad = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if ((b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27 && b !== 8) || b === 0x7f) bad++;
      i++;
      continue;
    }
    const length = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    let valid = length > 0 && i + length <= bytes.length;
    for (let k = 1; valid && k < length; k++) valid = (bytes[i + k]! & 0xc0) === 0x80;
    // A sequence cut by the sample's edge is not held against the file.
    if (!valid && length > 0 && i + length > bytes.length) break;
    if (valid) i += length;
    else {
      bad++;
      i++;
    }
  }
  return bad / bytes.length;
}
