/**
 * Walks the project the way a developer sees it: `.gitignore` rules (nested
 * files included) are honoured, secret files and `.git/` are skipped and
 * counted, special files (pipes, sockets, devices) are skipped and counted,
 * symlinks are listed but never followed. Order is stable: within
 * a directory, subdirectories first, then files, each by name.
 *
 * All work is metered (files, bytes, time); when a bound is hit the walk
 * stops and the meter says which bound and where, so tools can report it
 * instead of cutting silently.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { pathGlob } from "../util/glob.js";
import { isReadRefusal, readText } from "./files.js";
import type { Target, Workspace, WorkspaceLimits } from "./workspace.js";

export interface WalkEntry {
  /** Root-relative, "/"-separated. */
  rel: string;
  abs: string;
  kind: "file" | "dir" | "symlink";
  /** 1 for the start directory's children. */
  depth: number;
}

/** Counts the work of one call against the workspace limits. */
export class WorkMeter {
  files = 0;
  bytes = 0;
  secret = 0;
  /** Pipes, sockets and devices passed over: nothing can read them safely. */
  special = 0;
  /** Set when a limit stopped the work: which one, in words. */
  bounded?: string;
  private readonly started = performance.now();

  constructor(
    private readonly limits: WorkspaceLimits,
    private readonly signal?: AbortSignal,
  ) {}

  /** False once any bound is reached; throws if the call was aborted. */
  ok(): boolean {
    this.signal?.throwIfAborted();
    if (this.bounded) return false;
    if (this.files > this.limits.maxFiles) this.bounded = `stopped after ${this.limits.maxFiles} files (the per-call file limit)`;
    else if (this.bytes > this.limits.maxBytes) this.bounded = `stopped after reading ${this.limits.maxBytes >> 20} MiB (the per-call byte limit)`;
    else if (performance.now() - this.started > this.limits.maxMs) this.bounded = `stopped after ${this.limits.maxMs} ms (the per-call time limit)`;
    return !this.bounded;
  }

  get elapsedMs(): number {
    return Math.round(performance.now() - this.started);
  }
}

interface Scope {
  /** Root-relative directory the rules belong to ("" for the root). */
  dir: string;
  rules: Ignore;
}

export interface WalkRequest {
  start: Target;
  /** Deepest level to list, 1 = the start directory's children. Default unlimited. */
  maxDepth?: number;
  /** Only files matching this glob (directories are still descended). */
  glob?: string;
  /** Emit directories as entries too (tree does; searches do not). */
  dirs?: boolean;
}

/** Every entry under `start` (or `start` itself when it is a file), in walk order. */
export async function walk(ws: Workspace, request: WalkRequest, meter: WorkMeter): Promise<WalkEntry[]> {
  const { start } = request;
  if (start.kind === "file") {
    meter.files++;
    return [{ rel: start.rel, abs: start.abs, kind: "file", depth: 0 }];
  }
  const matches = request.glob ? pathGlob(request.glob) : undefined;
  const maxDepth = request.maxDepth ?? Infinity;
  const out: WalkEntry[] = [];
  const scopes = await ancestorScopes(ws, start.rel);

  const visit = async (abs: string, rel: string, depth: number, scopes: Scope[]): Promise<void> => {
    if (!meter.ok()) return;
    let dirents;
    try {
      dirents = await readdir(abs, { withFileTypes: true });
    } catch {
      return;
    }
    const here = dirents.some((d) => d.name === ".gitignore" && d.isFile()) ? await loadScope(abs, rel) : undefined;
    const active = here ? [...scopes, here] : scopes;
    const dirs: WalkEntry[] = [];
    const files: WalkEntry[] = [];
    for (const d of dirents) {
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const isDir = d.isDirectory();
      if (d.name === ".git" || ignored(active, childRel, isDir)) continue;
      if (!isDir && !d.isFile() && !d.isSymbolicLink()) {
        meter.special++;
        continue;
      }
      if (ws.isSecret(isDir ? `${childRel}/` : childRel)) {
        meter.secret++;
        continue;
      }
      const entry: WalkEntry = { rel: childRel, abs: join(abs, d.name), kind: isDir ? "dir" : d.isSymbolicLink() ? "symlink" : "file", depth };
      (isDir ? dirs : files).push(entry);
    }
    dirs.sort(byRel);
    files.sort(byRel);
    for (const dir of dirs) {
      if (request.dirs) out.push(dir);
      if (depth < maxDepth) await visit(dir.abs, dir.rel, depth + 1, active);
      if (!meter.ok()) return;
    }
    for (const file of files) {
      if (matches && !(matches(file.rel) || matches(file.rel.slice(start.rel ? start.rel.length + 1 : 0)))) continue;
      meter.files++;
      if (!meter.ok()) return;
      out.push(file);
    }
  };
  await visit(start.abs, start.rel, 1, scopes);
  return out;
}

/**
 * The .gitignore rules of the directories above `rel`. When `rel` itself is
 * ignored by them (the agent asked for `node_modules` by name), they are
 * dropped: an explicit path is honoured, and only rules inside it apply.
 */
async function ancestorScopes(ws: Workspace, rel: string): Promise<Scope[]> {
  if (!rel) return [];
  const parts = rel.split("/");
  const scopes: Scope[] = [];
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    const scope = await loadScope(join(ws.root, dir), dir);
    if (scope) scopes.push(scope);
  }
  return ignored(scopes, rel, true) ? [] : scopes;
}

/** A .gitignore is read like any file: never a pipe, never past 1 MiB. */
const GITIGNORE_POLICY = { maxBytes: 1 << 20, allowHardLink: () => true };

async function loadScope(abs: string, rel: string): Promise<Scope | undefined> {
  const file = await readText(join(abs, ".gitignore"), GITIGNORE_POLICY);
  return isReadRefusal(file) ? undefined : { dir: rel, rules: ignore().add(file.text) };
}

function ignored(scopes: readonly Scope[], rel: string, isDir: boolean): boolean {
  for (const scope of scopes) {
    const local = scope.dir ? rel.slice(scope.dir.length + 1) : rel;
    if (local && scope.rules.ignores(isDir ? `${local}/` : local)) return true;
  }
  return false;
}

function byRel(a: WalkEntry, b: WalkEntry): number {
  return a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0;
}
