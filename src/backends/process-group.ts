/**
 * The stdio transport on POSIX: the SDK's StdioClientTransport (same
 * environment, cwd, stdio pipes and message framing), except that the server
 * runs as the leader of a process group of its own, so that it is stopped
 * with everything it started. Many servers are `npx …` or a shell script
 * that starts the real server beneath it; signalling the direct child alone
 * would leave that one running.
 *
 * The SDK's transport offers no spawn option for this, hence this class.
 * Node's `detached` makes the child the leader of a new session (setsid),
 * which also gives it a group of its own and no controlling terminal: a
 * terminal's Ctrl-C reaches metatools only, which then closes its backends
 * in order. The group is reported to a `GroupWatch` (the reaper), which
 * stops it if metatools dies without closing it.
 *
 * A process that leaves the group on purpose (a daemon that calls setsid or
 * setpgid itself) is not followed.
 *
 * Its messages are framed by metatools (util/json-frame.ts) before the
 * SDK's schema reads them: one nested too deep (whose reading would
 * overflow the stack and fail the whole backend) fails its own request, or
 * is refused to the backend, and the connection goes on; one over the SDK
 * reader's own bound closes the connection, as the SDK's would.
 */
import type * as ChildProcesses from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { PassThrough, type Stream } from "node:stream";
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { JsonLines, MAX_JSON_DEPTH, type RefusedLine } from "../util/json-frame.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { AfterNotifications } from "./after-notifications.js";
import type { GroupWatch } from "./reaper.js";
import { settlesWithin } from "../util/abort.js";
import { lazyRequire } from "../util/lazy-require.js";
/** Node's child_process (with net and dgram), loaded at the first spawn: a CLI search from the snapshot spawns nothing. */
const childProcesses = lazyRequire<typeof ChildProcesses>("node:child_process");

export interface ProcessGroupParams {
  command: string;
  args: string[];
  /** Added to the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER), as the SDK does. */
  env?: Record<string, string>;
  cwd?: string;
}

/** How long each step of close() waits (stdin closed, then SIGTERM, then SIGKILL): the SDK's. */
const CLOSE_STEP_MS = 2000;
/** When the leader exits with others of its group still running: how long they have after SIGTERM before SIGKILL. */
const LEFTOVER_GRACE_MS = 1000;

export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  /** The group's id (the leader's pid), from the spawn until the group is known to be empty. */
  private group: number | undefined;
  private lines = this.framer();
  /** What is read goes to the client in the backend's order, a response never before the progress read with it. */
  private readonly inOrder = new AfterNotifications((message) => this.onmessage?.(message));
  /** Given out before start(), as the SDK's is, so no early line is lost. */
  private readonly stderrStream = new PassThrough();

  constructor(
    private readonly params: ProcessGroupParams,
    private readonly groups?: GroupWatch,
  ) {}

  get stderr(): Stream {
    return this.stderrStream;
  }

  /** The leader's pid once started, while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error("ProcessGroupTransport already started"));
    return new Promise((resolve, reject) => {
      const child = childProcesses().spawn(this.params.command, this.params.args, {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        cwd: this.params.cwd,
        detached: true,
      });
      this.child = child;
      // At once, not on "spawn": the reaper knows the group before any await could let metatools die.
      if (child.pid !== undefined) {
        this.group = child.pid;
        this.groups?.watch(child.pid);
      }
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("exit", () => this.stopLeftovers());
      child.on("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => this.lines.push(chunk));
      child.stdout!.on("error", (error) => this.onerror?.(error));
      child.stderr!.pipe(this.stderrStream);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.child?.stdin;
      if (!stdin) throw new Error("Not connected");
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** As the SDK's: stdin closed, then SIGTERM, then SIGKILL, 2 s apart; here each signal goes to the whole group. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
      child.stdin?.end();
      if (!(await settlesWithin(closed, CLOSE_STEP_MS)) && this.signal("SIGTERM") && !(await settlesWithin(closed, CLOSE_STEP_MS))) this.signal("SIGKILL");
    }
    this.lines = this.framer();
  }

  /** Sends `signal` to the server and everything left of its group; false when nothing of it is left. */
  signal(signal: NodeJS.Signals): boolean {
    if (this.group === undefined) return false;
    try {
      process.kill(-this.group, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The leader exited: the server is over (as systemd ends a service whose
   * main process exited), and whatever it left in its group has no one to
   * stop it (and may hold its stdout, so the connection would never close).
   * That gets SIGTERM, then SIGKILL; then the group is forgotten.
   */
  private stopLeftovers(): void {
    const group = this.group;
    if (group === undefined) return;
    const forget = () => {
      this.group = undefined;
      this.groups?.forget(group);
    };
    if (!this.signal("SIGTERM")) return forget();
    setTimeout(() => {
      this.signal("SIGKILL");
      forget();
    }, LEFTOVER_GRACE_MS).unref();
  }

  private framer(): JsonLines {
    return new JsonLines(
      { maxBytes: STDIO_DEFAULT_MAX_BUFFER_SIZE },
      (line) => this.read(line),
      (refused) => this.refused(refused),
    );
  }

  /** As the SDK's: a line that is not a message is reported and skipped. */
  private read(line: Buffer): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.toString("utf8").replace(/\r?\n$/, ""));
    } catch (error) {
      if (!(error instanceof SyntaxError)) this.onerror?.(error as Error);
      return;
    }
    this.inOrder.push(message);
  }

  private refused(refused: RefusedLine): void {
    if (refused.cause === "size") {
      // The SDK reader's own words (failures.ts explains them): the connection is dropped and made again.
      this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`));
      void this.close().catch(() => {});
      return;
    }
    const why = `the backend's ${refused.request ? "message" : "answer"} nests deeper than ${MAX_JSON_DEPTH} levels, the most a message may; it was not read`;
    this.onerror?.(new Error(why));
    if (refused.id === null) return;
    if (refused.request) void this.send({ jsonrpc: "2.0", id: refused.id, error: { code: -32600, message: `Invalid Request: ${why}` } }).catch(() => {});
    else this.inOrder.push({ jsonrpc: "2.0", id: refused.id, error: { code: -32603, message: why } } as JSONRPCMessage);
  }
}

/**
 * Waits for a closing connection (`closed`), stopping its server's process
 * if it does not end: SIGTERM, then SIGKILL, half a second apart. A server
 * that never finished its handshake has nothing to finish: it gets a
 * moment, not a second.
 */
export async function stopServer(
  closed: Promise<unknown> | undefined,
  child: { signal(signal: NodeJS.Signals): boolean } | undefined,
  connected: boolean,
): Promise<void> {
  if (child === undefined || (await settlesWithin(closed, connected ? 1000 : 100))) return;
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    if (!child.signal(signal)) return; // already gone
    if (await settlesWithin(closed, 500)) return;
  }
}
