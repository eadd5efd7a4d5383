import type { BackendErrorCode } from "../model/error-codes.js";
import { MetatoolsError } from "../util/errors.js";

/**
 * A backend failure, of a kind `BackendErrorCode` lists (its meanings are in
 * src/model/error-codes.ts): `needs_login`'s message names the command
 * a person runs; `needs_config` and `connect_failed` may carry `details.fix`.
 */
export class BackendError extends MetatoolsError {
  declare readonly code: BackendErrorCode;

  constructor(
    code: BackendErrorCode,
    message: string,
    readonly details: {
      upstreamCode?: number;
      /** On a timeout: the same call's arguments narrowed to less work, when the tool can say how. */
      narrowed?: Record<string, unknown>;
      /** What a person must do, when waiting or retrying cannot help (a program not on PATH, a config entry to correct). */
      fix?: string;
    } = {},
  ) {
    super(code, message);
    this.name = "BackendError";
  }
}

/** A stack frame: V8's `    at fn (/path/file.js:1:2)`, Python's `  File "/path/x.py", line 3, in f` (and the code line under it), Java's `\tat a.B.c(B.java:3)`. */
const FRAME = /^\s+(at\s+\S|File\s+"[^"]*",\s+line\s+\d+|\.\.\.\s+\d+\s+(more|lines\s+matching))/;
const TRACEBACK = /^\s*Traceback \(most recent call last\):\s*$/;
/** Paths into installed packages and caches (npx, pip, uv): they say where things live on the backend's machine, nothing the agent can use. */
// From a token's start only (the lookbehind), so a long text without such a path costs one pass.
const LOCAL_PATH = /(?<![^\s'"()<>[\]])[^\s'"()<>[\]]*[\\/](?:node_modules|\.npm|_npx|\.cache|site-packages|\.pnpm|\.yarn)[\\/][^\s'"()<>[\]]*/g;

/**
 * An error as an agent is shown it: the message, without the stack trace a
 * backend put in it or the local paths of installed packages. `trace` is
 * what was taken out (the whole text), for the debug log; undefined when
 * nothing was.
 */
export function withoutTrace(text: string): { message: string; trace?: string } {
  const lines = text.split("\n");
  const kept: string[] = [];
  let inTraceback = false;
  for (const line of lines) {
    if (TRACEBACK.test(line)) {
      inTraceback = true;
      continue;
    }
    // Inside a Python traceback every indented line is a frame or its code; the first unindented one is the error itself.
    if (inTraceback && /^\s/.test(line)) continue;
    inTraceback = false;
    if (FRAME.test(line)) continue;
    kept.push(line);
  }
  const message = kept.join("\n").replace(LOCAL_PATH, "[local path]").trimEnd();
  return message === text ? { message } : { message: message || "the backend reported an error (details in the debug log)", trace: text };
}
