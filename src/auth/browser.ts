/**
 * Opens a URL for a person: `$BROWSER` when set (the usual convention: one
 * or more commands separated by `:`, `%s` standing for the URL, else the URL
 * is the last argument), else the platform's opener. The URL is passed as
 * an argument, never spliced into a shell line. Whoever calls this prints
 * the URL too, for when nothing opens.
 */
import { spawn } from "node:child_process";

/** How the URL was handed on: "browser" ($BROWSER), "opener" (open, xdg-open, start), or "none". */
export async function openUrl(url: string, env: NodeJS.ProcessEnv = process.env): Promise<"browser" | "opener" | "none"> {
  for (const command of (env.BROWSER ?? "").split(":").map((c) => c.trim()).filter(Boolean)) {
    // "$1" is the URL, as an argument of sh: nothing in it is read by the shell.
    const line = command.includes("%s") ? command.replaceAll("%s", '"$1"') : `${command} "$1"`;
    if (await launched("/bin/sh", ["-c", line, "sh", url])) return "browser";
  }
  const opener = process.platform === "darwin" ? ["open", url] : process.platform === "win32" ? ["cmd", "/c", "start", '""', url] : ["xdg-open", url];
  return (await launched(opener[0]!, opener.slice(1))) ? "opener" : "none";
}

/** Starts `command` detached, output dropped; true when it started. */
function launched(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
