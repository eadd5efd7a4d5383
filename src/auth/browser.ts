/**
 * Opens a URL for a person: `$BROWSER` when set (the usual convention: one
 * or more commands separated by `:`, `%s` standing for the URL, else the URL
 * is the last argument), else the platform's opener. The URL is passed as
 * an argument, never spliced into a shell line. Whoever calls this prints
 * the URL too, for when nothing opens.
 */
import type * as ChildProcesses from "node:child_process";
import { lazyRequire } from "../util/lazy-require.js";
/** Node's child_process (with net and dgram), loaded at the first spawn: a CLI search from the snapshot spawns nothing. */
const childProcesses = lazyRequire<typeof ChildProcesses>("node:child_process");

/** How the URL was handed on: "browser" ($BROWSER), "opener" (open, xdg-open, start), or "none". */
export async function openUrl(url: string, env: NodeJS.ProcessEnv = process.env): Promise<"browser" | "opener" | "none"> {
  // An authorization endpoint comes from a server's metadata: only a web page is opened, never a file or another scheme's handler.
  if (!isWebUrl(url)) return "none";
  for (const command of (env.BROWSER ?? "")
    .split(":")
    .map((c) => c.trim())
    .filter(Boolean)) {
    // "$1" is the URL, as an argument of sh: nothing in it is read by the shell.
    const line = command.includes("%s") ? command.replaceAll("%s", '"$1"') : `${command} "$1"`;
    if (await launched("/bin/sh", ["-c", line, "sh", url])) return "browser";
  }
  // On Windows not `cmd /c start`: cmd would read the URL's `&`.
  const opener =
    process.platform === "darwin" ? ["open", url] : process.platform === "win32" ? ["rundll32", "url.dll,FileProtocolHandler", url] : ["xdg-open", url];
  return (await launched(opener[0]!, opener.slice(1))) ? "opener" : "none";
}

/** https, or http to this machine (a local authorization server). */
export function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || (parsed.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname));
  } catch {
    return false;
  }
}

/** A command that ends this fast with "not found" (126, 127) did not start: the next one is tried. */
const SETTLE_MS = 1500;

/** Starts `command` detached, output dropped; true unless it failed to start or the shell could not find or run it. */
function launched(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = childProcesses().spawn(command, args, { detached: true, stdio: "ignore" });
    let timer: NodeJS.Timeout | undefined;
    child.once("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once("spawn", () => {
      // A browser may run for hours: after a moment it counts as started, and is left to itself.
      timer = setTimeout(() => {
        child.unref();
        resolve(true);
      }, SETTLE_MS);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code !== 126 && code !== 127);
      });
    });
  });
}
