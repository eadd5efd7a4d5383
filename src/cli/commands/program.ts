import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { callsIn, MAX_PROGRAM_CHARS, RUN_PROGRAM_ID, type TraceEntry } from "../../builtin/run-program.js";
import { createMetaDispatcher } from "../../meta/index.js";
import { flag, logLevel, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";
import { stderr, stdout } from "../output.js";
import { textTable } from "../../util/table.js";
import { styleFor } from "../style.js";

export const command = defineCommand({
  name: "program",
  group: "use",
  summary: "run a JavaScript program of many tool calls (metatools:run_program), printing what it returns and its trace",
  args: "FILE",
  details:
    "The program is the body of an async function: `await tools.call(id, args)`, tools.search, tools.describe, console.log, `input`; docs/scripts.md says what it may do and its limits. Its value prints on stdout, its log lines and the trace of its calls on stderr (--json: the whole reply). Every backend is started: the program may call any.",
  flags: {
    code: flag.string("JS", "the program itself, instead of a FILE"),
    input: flag.string("JSON", "what the program reads as `input`, as JSON"),
    timeout: flag.int("MS", 1, "give up after MS milliseconds"),
    json: SHARED.json,
  },
  run: program,
});

/** The run_tool arguments a `metatools program` command line stands for. */
export function programRequest(argv: string[]) {
  const { values, positionals } = parseFlags(argv, command.flags);
  if ((values.code === undefined) === (positionals.length !== 1))
    throw new UsageError('give the program as one FILE or as --code, e.g. metatools program count.js --input \'{"dir":"src"}\'');
  const code = values.code ?? readProgram(positionals[0]!);
  const args: Record<string, unknown> = { code };
  if (values.input !== undefined) {
    try {
      args.input = JSON.parse(values.input) as unknown;
    } catch (error) {
      throw new UsageError(`--input must be JSON: ${(error as Error).message}`);
    }
  }
  return { values, call: { tool_id: RUN_PROGRAM_ID, args, ...(values.timeout !== undefined ? { timeout_ms: values.timeout } : {}) } };
}

export async function program(argv: string[]): Promise<number> {
  const { values, call } = programRequest(argv);
  const json = values.json ?? false;
  return withApp(values, logLevel(values["log-level"], "warn"), async (app) => {
    // The person typed the program: that is the approval of its calls, as `metatools run` is of one.
    const body = await createMetaDispatcher(app)("run_tool", call, { typed: true });
    const structured = (body as { structured?: unknown }).structured as { result?: unknown } | undefined;
    // For a person, what the program returned alone on stdout (a string as its text); its trace follows on stderr.
    if (json || body.ok === false || !structured || !("result" in structured)) {
      const code = printBody("run_tool", body, json);
      if (!json) printTrace(body as Record<string, unknown>);
      return code;
    }
    const value = structured.result;
    if (typeof value === "string") stdout().pass(value.endsWith("\n") ? value : `${value}\n`);
    else stdout().json(value);
    printTrace(body as Record<string, unknown>);
    return 0;
  });
}

/** The program's log lines and its calls, for a person: on stderr, beside the value on stdout. */
function printTrace(body: Record<string, unknown>): void {
  const structured = body.structured as { program?: Report } | undefined;
  const report = structured?.program ?? (body.program as Report | undefined);
  if (!report) return;
  const err = stderr();
  const style = styleFor(process.stderr);
  for (const line of report.logs ?? []) err.write(`${style.dim("log:")} ${line}\n`);
  if (report.logs_dropped) err.write(`${style.dim(`(${report.logs_dropped} more log lines not kept)`)}\n`);
  if (report.trace.length)
    err.write(
      `${textTable({
        head: ["call", "times", "ms", "cache", "outcome"],
        align: ["left", "right", "right", "left", "left"],
        rows: report.trace.map((t) => [t.call, String(t.n ?? 1), String(t.ms), t.cache ?? "", t.ok ? "ok" : (t.error ?? "failed")]),
      })}\n`,
    );
  const made = callsIn(report.trace);
  err.write(`${style.dim(`${made} call${made === 1 ? "" : "s"}, ${report.cpu_ms} ms of CPU, ${report.wall_ms} ms in all`)}\n`);
}

type Report = { trace: TraceEntry[]; logs?: string[]; logs_dropped?: number; cpu_ms: number; wall_ms: number };

/** A program file, read whole up to the longest program accepted: a regular file only (a FIFO or a device is refused, not waited on). */
function readProgram(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new UsageError(`cannot read the program ${file}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${file} is not a regular file: give the program as a file, or as --code`);
    const most = MAX_PROGRAM_CHARS * 4;
    if (stat.size > most) throw new UsageError(`${file} is ${stat.size} bytes; a program is at most ${MAX_PROGRAM_CHARS} characters`);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    const code = buffer.subarray(0, read).toString("utf8");
    if (code.length > MAX_PROGRAM_CHARS) throw new UsageError(`${file} holds ${code.length} characters; a program is at most ${MAX_PROGRAM_CHARS}`);
    return code;
  } finally {
    closeSync(fd);
  }
}
