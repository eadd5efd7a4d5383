import * as z from "zod";
import { defineTool, type Body } from "../../builtin/backend.js";
import { jsonBytes } from "../../disclosure/budget.js";
import { formatCall, guidanceFields, hint, recoverable } from "../../disclosure/guidance.js";
import { spill, type OutputStore } from "../../disclosure/outputs.js";
import { describeMiss, evaluateJsonPath, suggestAfterMiss } from "../../util/json-path.js";
import { codeCall, isTarget, target, type CodeContext } from "../context.js";
import { openRegular, readText, type ReadRefusal } from "../files.js";
import { readLineWindow } from "../line-window.js";
import type { Target } from "../workspace.js";

const readArgs = z.strictObject({
  path: z.string().min(1).describe('File path relative to the project root, e.g. "src/app.ts".'),
  start_line: z.int().min(1).optional().describe("First line to read (default 1)."),
  end_line: z.int().min(1).optional().describe("Last line to read, inclusive (default: the last line)."),
  json_path: z.string().optional().describe('For .json files: the part to return, e.g. "$.scripts" or "$.dependencies". Replaces the line range.'),
});
type ReadArgs = z.output<typeof readArgs>;

const HEAD_LINES = 20;

export function readFileTool(context: CodeContext, outputs: OutputStore) {
  return defineTool({
    name: "read_file",
    title: "Read a file",
    description:
      "Read a text file of the project, whole or a line range (start_line/end_line, 1-based, inclusive), or one part of a JSON file by json_path. A read too big to send comes back as a handle with a summary and the call that reads it in slices.",
    args: readArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },

    async handle(args, { principal, signal }): Promise<Body> {
      const file = await target(context, "read_file", args, args.path, "file");
      if (!isTarget(file)) return file;
      if (args.start_line && args.end_line && args.end_line < args.start_line) {
        const next = codeCall(context, "read_file", { ...args, end_line: args.start_line });
        return recoverable(
          "invalid_range",
          `end_line ${args.end_line} is before start_line ${args.start_line}.`,
          hint(`For example: ${formatCall(next)}`, next),
        );
      }
      if (file.size > context.ws.limits.maxFileBytes) return largeFile(context, file, args, signal);
      const read = await readText(file.abs, context.ws.read);
      if (read === "too_large") return largeFile(context, file, args, signal);
      if (typeof read === "string") return unread(file, read);
      const text = read.text;
      if (args.json_path !== undefined) return jsonPart(context, outputs, principal, file, text, args.json_path);
      const lines = text.split(/\r?\n/);
      if (lines.at(-1) === "") lines.pop();
      const start = args.start_line ?? 1;
      if (start > lines.length && lines.length > 0) {
        const next = codeCall(context, "read_file", { path: file.rel, start_line: Math.max(1, lines.length - 49), end_line: lines.length });
        return recoverable(
          "invalid_range",
          `${file.rel} has ${lines.length} lines; start_line ${start} is past the end.`,
          hint(`Read its end: ${formatCall(next)}`, next),
        );
      }
      const end = Math.min(args.end_line ?? lines.length, lines.length);
      const content = lines.slice(start - 1, end).join("\n");
      const body = { path: file.rel, start_line: start, end_line: end, total_lines: lines.length, content };
      if (jsonBytes(body) <= context.budget) return body;
      const stored = await spill(outputs, { kind: "text", text: content, source: `code:read_file ${file.rel}` }, context.budget, principal);
      return {
        path: file.rel,
        start_line: start,
        end_line: end,
        total_lines: lines.length,
        handle: stored.handle,
        summary: stored.summary,
        hint: `Lines ${start}-${end} are too many to send (${jsonBytes(content)} bytes); they are stored as ${stored.handle}, where line 1 is line ${start} of the file. ${stored.hint}`,
        next: stored.next,
      };
    },
  });
}

/** A file that was not read, and why: the refusal the agent sees. */
function unread(file: Target, reason: ReadRefusal): Body {
  if (reason === "binary") return recoverable("binary_file", `${file.rel} is a binary file (${file.size} bytes); read_file returns text only.`);
  if (reason === "special") return recoverable("special_file", `${file.rel} is not a regular file; read_file reads regular files only.`);
  if (reason === "outside_root")
    return recoverable("outside_root", `${file.rel} led outside the project root when it was opened (a folder on its path changed); it was not read.`);
  if (reason === "hard_link")
    return recoverable("hard_link", `${file.rel} is a hard link; the code tools do not read it (set metatools.code.allowHardLinks to allow).`);
  return recoverable("unreadable", `${file.rel} could not be read (it changed or went away while being opened).`);
}

/**
 * A file over the size cap is not read whole: its size, line count and
 * head (or the range asked for), streamed, and the call for the next range.
 */
async function largeFile(context: CodeContext, file: Target, args: ReadArgs, signal: AbortSignal): Promise<Body> {
  const wanted = args.start_line !== undefined || args.end_line !== undefined;
  const start = args.start_line ?? 1;
  const end = args.end_line ?? (wanted ? start + 199 : HEAD_LINES);
  const opened = await openRegular(file.abs, context.ws.read);
  if (typeof opened === "string") return unread(file, opened);
  let window;
  try {
    window = await readLineWindow(opened.handle, opened.size, {
      start,
      end,
      maxLineChars: 2000,
      maxScanBytes: context.ws.limits.maxBytes,
      signal,
      redact: context.ws.read.redact,
    });
  } finally {
    await opened.handle.close().catch(() => {});
  }
  if (window === "binary") return unread(file, "binary");
  const picked = window.lines;
  const counted = window.counted;
  const next = codeCall(context, "read_file", { path: file.rel, start_line: wanted ? end + 1 : 1, end_line: wanted ? end + 200 : 200 });
  const body = (shown: string[]): Body => ({
    path: file.rel,
    bytes: file.size,
    ...(counted ? { lines_counted: counted.lines, bytes_counted: counted.bytes } : { total_lines: window.totalLines }),
    start_line: start,
    end_line: start + shown.length - 1,
    content: shown.join("\n"),
    ...guidanceFields(
      hint(
        `${file.rel} is ${file.size} bytes, over the ${context.ws.limits.maxFileBytes >> 10} KiB cap for whole reads, so ${wanted ? "only the range was read" : `only its first ${HEAD_LINES} lines are shown`}${counted ? `; lines were counted in its first ${counted.bytes >> 20} MiB only` : ""}. Read by range: ${formatCall(next)}.`,
        next,
      ),
    ),
  });
  let shown = picked;
  while (shown.length > 1 && jsonBytes(body(shown)) > context.budget) shown = shown.slice(0, Math.floor(shown.length / 2));
  return body(shown);
}

async function jsonPart(context: CodeContext, outputs: OutputStore, principal: string, file: Target, text: string, path: string): Promise<Body> {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    const next = codeCall(context, "read_file", { path: file.rel, start_line: 1, end_line: 100 });
    return recoverable(
      "not_json",
      `${file.rel} is not valid JSON (${(error as Error).message}), so json_path cannot apply.`,
      hint(`Read it as text: ${formatCall(next)}`, next),
    );
  }
  const found = evaluateJsonPath(root, path);
  if (!found.ok) {
    const suggested = suggestAfterMiss(found);
    const next = suggested ? codeCall(context, "read_file", { path: file.rel, json_path: suggested }) : undefined;
    return recoverable("json_path_miss", describeMiss(path, found), next && hint(`For example: ${formatCall(next)}`, next));
  }
  const body = { path: file.rel, json_path: path, value: found.value };
  if (jsonBytes(body) <= context.budget) return body;
  const stored = await spill(
    outputs,
    { kind: "json", text: JSON.stringify(found.value, null, 2), source: `code:read_file ${file.rel} ${path}` },
    context.budget,
    principal,
  );
  return { path: file.rel, json_path: path, handle: stored.handle, summary: stored.summary, hint: stored.hint, next: stored.next };
}
