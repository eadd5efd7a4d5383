/**
 * How a command's process ends. Once a command has returned, Node still
 * waits for V8's background work (compile and GC tasks) before it exits:
 * 5–7 ms of a CLI search that has nothing left to do. So once stdout and
 * stderr are written, the process exits if nothing else is open. Anything
 * still in flight (a child, a timer, a file or socket operation) is left to
 * finish as usual.
 */
import { stderr, stdout } from "./output.js";

/**
 * Open handles that cost nothing to leave: the standard streams' (and any
 * other idle pipe or terminal, which would keep the loop from ending, or
 * not, as it does now). A write still in flight on one shows as its own
 * request, and waits.
 */
const IDLE_STREAMS = new Set(["TTYWrap", "PipeWrap"]);

/** Sets the exit code; once stdout and stderr are written, exits if nothing else is open or in flight. */
export function exitWhenQuiet(code: number): void {
  process.exitCode = code;
  // A write's request is listed until its callback has returned: looked at in the next turn.
  void Promise.all([stdout().flushed(), stderr().flushed()]).then(() =>
    setImmediate(() => {
      if (process.getActiveResourcesInfo().every((kind) => IDLE_STREAMS.has(kind))) process.exit();
    }),
  );
}
