/**
 * Stdio backends do not outlive metatools, even when it is SIGKILLed.
 *
 * Node cannot ask the kernel to signal a child when its parent dies (Linux's
 * PR_SET_PDEATHSIG is not exposed), and a backend that ignores its stdin
 * closing would otherwise run on under init, with whatever it started. So
 * each stdio backend runs in a process group of its own
 * (`ProcessGroupTransport`), and one small watchdog per metatools process,
 * the reaper, holds the read end of a pipe whose write end only metatools
 * holds. metatools writes `+PGID` when it starts a backend and `-PGID` once
 * that group is empty. When the pipe reaches end of file, metatools is gone,
 * however it went: the reaper sends SIGTERM to every group still listed,
 * then SIGKILL a second later, and exits.
 *
 * The reaper is `/bin/sh` running the script below (about a millisecond to
 * start, under 1 MB), started at the first stdio backend, in a session of its
 * own so that a terminal's Ctrl-C or hang-up, which end metatools, do not
 * end it first; it ignores SIGTERM for the same reason. It exits as soon as
 * its pipe closes with no group listed, so a clean shutdown leaves nothing.
 * POSIX only: see docs/deploy.md for Windows.
 */
import type * as ChildProcesses from "node:child_process";
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { silentLogger, type Logger } from "../util/log.js";
import { errorMessage } from "../util/errors.js";
import { lazyRequire } from "../util/lazy-require.js";
/** Node's child_process (with net and dgram), loaded at the first spawn: a CLI search from the snapshot spawns nothing. */
const childProcesses = lazyRequire<typeof ChildProcesses>("node:child_process");

/** Where a backend's process group is reported; `ProcessGroupTransport` calls it. */
export interface GroupWatch {
  /** A group was started: stop it if metatools dies. */
  watch(pgid: number): void;
  /** The group is empty: its id may be reused by the system, so it must not be signalled any more. */
  forget(pgid: number): void;
}

/**
 * `$g` holds the listed groups as " 1 2 3 ". `read` returns non-zero at end
 * of file, even on a last line without a newline, which is dropped: metatools
 * always writes whole lines. The first line names the process in `ps`.
 */
const SCRIPT = `# metatools reaper: stops the listed process groups when metatools exits
trap '' HUP INT QUIT TERM PIPE
g=' '
while IFS= read -r line; do
  case $line in
    +*) g="$g\${line#+} " ;;
    -*) p=\${line#-}; case $g in *" $p "*) g="\${g%% $p *} \${g#* $p }" ;; esac ;;
  esac
done
set -- $g
[ $# -eq 0 ] && exit 0
for p; do kill -s TERM -- "-$p" 2>/dev/null; done
sleep 1
for p; do kill -s KILL -- "-$p" 2>/dev/null; done
`;

/** `sleep` is a command of its own; a fixed PATH, so the user's PATH (and environment) never reaches the reaper. */
const REAPER_ENV = { PATH: "/usr/bin:/bin" };

export class Reaper implements GroupWatch {
  private child: ChildProcess | undefined;
  /** Set once the reaper could not start or died, or was closed: it is not started again. */
  private done = false;

  constructor(private readonly logger: Logger = silentLogger) {}

  watch(pgid: number): void {
    this.send(`+${pgid}`);
  }

  forget(pgid: number): void {
    if (this.child) this.send(`-${pgid}`);
  }

  /**
   * Closes the pipe: the reaper stops the groups still listed (none after the
   * backends closed in order) and exits. Call after the backends' close.
   */
  close(): void {
    this.done = true;
    const child = this.child;
    this.child = undefined;
    child?.stdin?.end();
  }

  private send(line: string): void {
    const stdin = this.start()?.stdin;
    // A pipe write this small is done at once, not queued: the line is in the pipe before any backend could be orphaned.
    stdin?.write(`${line}\n`);
  }

  private start(): ChildProcess | undefined {
    if (this.child || this.done) return this.child;
    let child: ChildProcess;
    try {
      child = childProcesses().spawn("/bin/sh", ["-c", SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"], cwd: "/", env: REAPER_ENV });
    } catch (error) {
      this.fail(errorMessage(error));
      return undefined;
    }
    this.child = child;
    child.once("error", (error) => this.fail(error.message, child));
    child.once("exit", () => this.fail("it exited", child));
    // A reaper that died: its pipe's writes fail with EPIPE, already reported by its exit.
    child.stdin!.on("error", () => {});
    // Neither the reaper nor its pipe keeps metatools running: it lives exactly as long as metatools does.
    child.unref();
    (child.stdin as Socket).unref();
    return child;
  }

  private fail(why: string, child?: ChildProcess): void {
    if (child && child !== this.child) return;
    this.child = undefined;
    if (this.done) return;
    this.done = true;
    this.logger.warn(`the reaper that stops stdio backends if metatools is killed is not running (${why}); they are still stopped on a normal exit`);
  }
}
