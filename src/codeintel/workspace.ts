/**
 * The project root the `code:` tools work in, and the rules that keep them
 * inside it: every path is resolved against the root and confined to it
 * after symlinks are resolved; secret files (`.env*`, private keys,
 * credential files, `.git/` internals, plus a configurable deny-list),
 * special files (pipes, sockets, devices) and hard-linked files are refused.
 */
import { realpathSync, type Dirent, type Stats } from "node:fs";
import { lstat, readdir, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import type { PathRefusalCode } from "../model/error-codes.js";
import { nearest } from "../text/suggest.js";
import { isInside, type ReadPolicy } from "./files.js";
import { DEFAULT_SECRET_PATTERNS } from "../config/secret-files.js";

export interface WorkspaceLimits {
  /** Files larger than this are listed but not read whole, parsed or searched. */
  maxFileBytes: number;
  /** Most files one call visits. */
  maxFiles: number;
  /** Most bytes one call reads. */
  maxBytes: number;
  /** Longest time one call spends walking and reading. */
  maxMs: number;
}

/** A path the agent gave, resolved inside the root. `rel` is "" for the root, "/"-separated otherwise. */
export interface Target {
  abs: string;
  rel: string;
  kind: "file" | "dir";
  size: number;
  mtimeMs: number;
}

export type Refusal = {
  code: PathRefusalCode;
  message: string;
  suggestions?: string[];
};

export interface WorkspacePolicy {
  /** Extra secret patterns (.gitignore syntax) after the defaults. */
  deny?: readonly string[];
  /** Read files that have more than one name. Default false. */
  allowHardLinks?: boolean;
  /** Applied to every file's text as it is read, before any tool cuts it: every secret from the environment. */
  redact?: (text: string) => string;
  /**
   * Applied instead to text that grep searches: credentials only, so grep is
   * no oracle for them, while a value redacted only for where it was
   * substituted (APP_STAGE=production) can still be found; the lines shown
   * are then redacted whole before they are cut.
   */
  redactForSearch?: (text: string) => string;
}

export class Workspace {
  readonly root: string;
  /** How files are read: the size cap for whole reads, hard links, the root, redaction. */
  readonly read: ReadPolicy;
  /** The same for text that grep searches (see WorkspacePolicy.redactForSearch). */
  readonly searchRead: ReadPolicy;
  private readonly secrets: Ignore;

  constructor(
    root: string,
    readonly limits: WorkspaceLimits,
    policy: WorkspacePolicy = {},
  ) {
    this.root = realpathSync(root);
    this.secrets = ignore().add([...DEFAULT_SECRET_PATTERNS, ...(policy.deny ?? [])]);
    const hardLinks = policy.allowHardLinks ?? false;
    this.read = {
      maxBytes: limits.maxFileBytes,
      // pnpm links every file under node_modules to its store: those are a package manager's, not a way out.
      allowHardLink: (abs) => hardLinks || /(^|\/)node_modules\//.test(this.relative(abs)),
      root: this.root,
      redact: policy.redact,
    };
    this.searchRead = { ...this.read, redact: policy.redactForSearch ?? policy.redact };
  }

  /** The root-relative, "/"-separated form of an absolute path inside the root. */
  relative(abs: string): string {
    const rel = relative(this.root, abs);
    return sep === "/" ? rel : rel.split(sep).join("/");
  }

  /** True when the path (root-relative) is a secret; directories need a trailing "/". */
  isSecret(rel: string): boolean {
    return rel !== "" && this.secrets.ignores(rel);
  }

  /** Resolves a path the agent gave (relative to the root, or absolute inside it). */
  async resolve(input: string | undefined, expect?: "file" | "dir"): Promise<Target | Refusal> {
    const given = (input ?? "").trim() || ".";
    const lexical = isAbsolute(given) ? resolve(given) : resolve(this.root, given);
    if (!isInside(this.root, lexical)) {
      return { code: "outside_root", message: `${given} is outside the project root; paths are relative to the root (${basename(this.root)}/), e.g. "src".` };
    }
    let real: string;
    try {
      real = await realpath(lexical);
    } catch {
      return { code: "path_not_found", message: `${given} does not exist in the project.`, suggestions: await this.suggest(lexical) };
    }
    if (!isInside(this.root, real)) {
      return { code: "outside_root", message: `${given} is a symlink that leads outside the project root; it is not followed.` };
    }
    const stats = await lstat(real);
    const kind = stats.isDirectory() ? "dir" : "file";
    const rel = this.relative(real);
    if (this.isSecret(kind === "dir" && rel ? `${rel}/` : rel) || this.isSecret(this.relative(lexical))) {
      return { code: "secret_path", message: `${given} may hold secrets (credentials, keys, .env or .git internals), so the code tools do not read it.` };
    }
    if (kind === "file" && !stats.isFile()) {
      return { code: "special_file", message: `${given} is a ${specialKind(stats)}, not a regular file; the code tools read regular files only.` };
    }
    if (kind === "file" && stats.nlink > 1 && !this.read.allowHardLink(real)) {
      return {
        code: "hard_link",
        message: `${given} is a hard link (one of ${stats.nlink} names for the same file), so its other names may be outside the project or secret; the code tools do not read it (set metatools.code.allowHardLinks to allow).`,
      };
    }
    if (expect && kind !== expect) {
      return {
        code: expect === "file" ? "not_a_file" : "not_a_dir",
        message: `${given} is a ${kind === "dir" ? "directory" : "file"}, not a ${expect === "file" ? "file" : "directory"}.`,
      };
    }
    return { abs: real, rel, kind, size: stats.size, mtimeMs: stats.mtimeMs };
  }

  /** Entries of the nearest existing ancestor whose names resemble the missing part. */
  private async suggest(lexical: string): Promise<string[]> {
    let missing = lexical;
    let parent = dirname(lexical);
    while (isInside(this.root, parent)) {
      try {
        const names = (await readdir(parent)).filter((n) => !this.isSecret(this.relative(join(parent, n))));
        return nearest(basename(missing), names, 3, 0.3).map((n) => this.relative(join(parent, n)));
      } catch {
        missing = parent;
        parent = dirname(parent);
      }
    }
    return [];
  }
}

/** A special file in words, for refusals. */
export function specialKind(stats: Stats | Dirent): string {
  if (stats.isFIFO()) return "named pipe (FIFO)";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "device";
  return "special file";
}

export function isRefusal(value: Target | Refusal): value is Refusal {
  return "code" in value;
}
