/**
 * A stdio server that could not be spawned, said the way a person fixes it:
 * `spawn npx ENOENT` means `npx` is not on the PATH metatools runs with,
 * which no retry will change.
 */
import { statSync } from "node:fs";
import { formatPath } from "../config/env.js";
import type { StdioBackendSpec } from "../config/resolved.js";

export interface SpawnProblem {
  /** What went wrong, naming the program: "`npx` is not on PATH (…)". */
  message: string;
  /** What a person must do. */
  fix: string;
}

/** How much of PATH a message quotes. */
const PATH_CHARS = 160;

/** The problem behind a failed spawn of `spec`'s command; undefined for any other error. */
export function spawnProblem(error: unknown, spec: Pick<StdioBackendSpec, "namespace" | "command" | "cwd" | "env">): SpawnProblem | undefined {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof syscall !== "string" || !syscall.startsWith("spawn")) return undefined;
  const command = spec.command;
  const field = formatPath(["mcpServers", spec.namespace, "command"]);
  const raw = `${syscall} ${code ?? ""}`.trim();
  if (code === "ENOENT") {
    // Node says ENOENT for a missing working folder too, naming the command.
    if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
      return {
        message: `its working folder \`${spec.cwd}\` does not exist (${raw})`,
        fix: `create it, or correct ${formatPath(["mcpServers", spec.namespace, "cwd"])} in the config`,
      };
    }
    if (/[\\/]/.test(command)) return { message: `\`${command}\` does not exist (${raw})`, fix: `correct ${field} in the config: the program's path` };
    return {
      message: `\`${command}\` is not on PATH (${raw}; PATH is ${quotePath(spec.env.PATH ?? process.env.PATH)})`,
      fix: `install ${command}, or set ${field} to its full path (\`command -v ${command}\` in a terminal prints it): an app started from the desktop does not get your shell's PATH`,
    };
  }
  if (code === "EACCES" || code === "EPERM") {
    return {
      message: `\`${command}\` cannot be run: permission denied (${raw})`,
      fix: `make it executable (chmod +x ${command}), or set ${field} to the program itself, not a folder or a data file`,
    };
  }
  if (code === "ENOTDIR") return { message: `\`${command}\` goes through a file as if it were a folder (${raw})`, fix: `correct ${field} in the config` };
  return undefined;
}

/**
 * What a server's stderr says that no retry changes: npm has no package of
 * the name the entry gives (`npm error code E404`). `quote` makes the name,
 * which is the registry's text, safe to show.
 */
export function stderrProblem(tail: string, spec: Pick<StdioBackendSpec, "namespace">, quote: (text: string) => string): SpawnProblem | undefined {
  if (!/^npm (?:error|ERR!) code E404\b/m.test(tail)) return undefined;
  const url = /404 Not Found - GET (\S+)/.exec(tail)?.[1];
  let name: string | undefined;
  try {
    name = url && decodeURIComponent(url.slice(url.lastIndexOf("/") + 1));
  } catch {
    name = undefined;
  }
  return {
    message: `npm has no package ${name ? `"${quote(name)}"` : "of the name it was given"} (404 Not Found)`,
    fix: `correct the package's name in ${formatPath(["mcpServers", spec.namespace, "args"])}: no retry helps until then`,
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function quotePath(path: string | undefined): string {
  if (!path) return "empty";
  return path.length > PATH_CHARS ? `${path.slice(0, PATH_CHARS)}…` : path;
}
