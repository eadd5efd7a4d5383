/**
 * Tool names as the MCP spec wants them: 1–128 characters of ASCII letters,
 * digits, `_`, `-` and `.` (plus `/`, which the proposal that set the rule
 * allowed and some servers use). A backend's name outside that set would
 * reach the agent and the terminal as is: control characters that move the
 * cursor or fake a line, newlines that split a listing, or 20 KB of name that
 * no page can hold. Such a name is served in a safe spelling, the backend is
 * still called by its own, and describe_tool says so.
 */
import { createHash } from "node:crypto";

export const MAX_NAME = 128;
const VALID = /^[A-Za-z0-9_./-]{1,128}$/;

/** The safe spelling of an upstream name, or undefined when it is valid as it is. */
export function safeToolName(name: string): string | undefined {
  if (VALID.test(name)) return undefined;
  const spelled =
    name
      .normalize("NFKD")
      .replace(/[^A-Za-z0-9_./-]+/g, "_")
      .replace(/^_+|_+$/g, "") || "tool";
  return spelled.length <= MAX_NAME ? spelled : distinct(spelled, name);
}

/**
 * The served name of each tool whose own name is not valid, for a whole
 * list at once: when two names spell alike (or one spells like a valid
 * name), every renamed one of them gets a hash, so which tool gets which
 * name never depends on the order a backend lists them in.
 */
export function servedNames(names: readonly string[]): Map<string, string> {
  const spelled = new Map<string, string>();
  const count = new Map<string, number>();
  for (const name of names) {
    const safe = safeToolName(name) ?? name;
    if (safe !== name) spelled.set(name, safe);
    count.set(safe, (count.get(safe) ?? 0) + 1);
  }
  return new Map([...spelled].map(([name, safe]) => [name, count.get(safe)! > 1 ? distinct(safe, name) : safe]));
}

/** `name` with a hash of `original` at its end, within the length limit: two originals that spell alike stay apart. */
export function distinct(name: string, original: string): string {
  return `${name.slice(0, MAX_NAME - 9)}_${hash(original)}`;
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/** How describe_tool tells the agent about a renamed tool: the original quoted, printable and short. */
export function renameNote(original: string, served: string): string {
  const shown = JSON.stringify(original.length > 80 ? `${original.slice(0, 80)}…` : original).replace(
    /[\u0080-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `The backend names this tool ${shown} (${original.length} characters), which is not a valid MCP tool name; it is served as "${served}" and called by its own name.`;
}
