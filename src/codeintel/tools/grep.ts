import { defineTool, type Body } from "../../builtin/backend.js";
import { formatCall, hint, recoverable } from "../../disclosure/guidance.js";
import { distribution, OutputGuard, type Distribution, type Narrowing, type PageInput } from "../../disclosure/guard.js";
import { escapeRegExp } from "../../util/glob.js";
import { compileRegex, type SafeRegex } from "../../util/regex.js";
import { codeCall, dropUndefined, globProblem, narrowPath, isTarget, PAGE_PROPERTIES, target, type CodeContext } from "../context.js";
import { describeSkips, scan } from "../scan.js";
import { clipLine, groupLines, type LineHit } from "./lines.js";

interface GrepArgs extends PageInput {
  pattern: string;
  path?: string;
  glob?: string;
  context_lines?: number;
  case_sensitive?: boolean;
}

const CAP = 200;

export function grepTool(context: CodeContext) {
  return defineTool<GrepArgs>({
    name: "grep",
    title: "Search file contents",
    description:
      "Search the project's text files with a regular expression (RE2 syntax, as in ripgrep: JavaScript's without lookaround or backreferences), like ripgrep: matching lines with line numbers, grouped by file, with by_file counts over all matches. Skips .gitignored, binary and secret files. Case-insensitive unless the pattern has a capital letter.",
    inputSchema: {
      type: "object",
      properties: {
        pattern: { type: "string", minLength: 1, description: 'Regular expression, e.g. "TODO|FIXME" or "function\\\\s+load". Escape . ( [ etc. to match them literally.' },
        path: { type: "string", description: 'File or directory to search, relative to the project root (default: the root). Example: "src".' },
        glob: { type: "string", description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.py".' },
        context_lines: { type: "integer", minimum: 0, maximum: 10, description: "Lines of context before and after each match (default 0)." },
        case_sensitive: { type: "boolean", description: "Match case exactly. Default: only when the pattern contains a capital letter." },
        ...PAGE_PROPERTIES,
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    narrow: (args) => narrowPath(context, args),

    async handle(args, { signal }): Promise<Body> {
      const base = dropUndefined({ ...args, offset: undefined }) as Body;
      const caseSensitive = args.case_sensitive ?? /[A-Z]/.test(args.pattern.replace(/\\[A-Za-z]/g, ""));
      let regex: SafeRegex;
      try {
        regex = compileRegex(args.pattern, { ignoreCase: !caseSensitive, multiline: true });
      } catch (error) {
        const literal = escapeRegExp(args.pattern);
        const next = codeCall(context, "grep", { ...base, pattern: literal });
        return recoverable(
          "invalid_regex",
          `"${args.pattern}" is not a usable regular expression: ${(error as Error).message}.`,
          hint(`To search for the text literally, escape the special characters: ${formatCall(next)}`, next),
        );
      }
      const badGlob = globProblem(context, "grep", base);
      if (badGlob) return badGlob;
      const start = await target(context, "grep", base, args.path);
      if (!isTarget(start)) return start;
      const guard = OutputGuard.fromInput(args);
      const around = args.context_lines ?? 0;
      const { results, report } = await scan(context.ws, {
        start,
        glob: args.glob,
        signal,
        each: async (_info, read) => {
          const text = await read();
          if (text === undefined || !regex.test(text)) return undefined;
          return findLines(_info.entry.rel, text, regex, around, guard.focused ? 1000 : 240, signal);
        },
      });
      const hits = results.flat();
      const note = describeSkips(report, context.ws.limits.maxFileBytes);
      return guard.respond({
        items: hits,
        cap: CAP,
        budget: context.budget,
        render: (shown) => ({
          files: groupLines(shown),
          ...(hits.length === 0 ? { hint: `No line matches /${args.pattern}/${caseSensitive ? "" : "i"} in ${report.files} files.` } : {}),
          ...(note ? { note } : {}),
        }),
        narrowings: (files) => narrowings(context, base, files),
        pageCall: (offset) => codeCall(context, "grep", { ...base, offset }),
        fileOf: start.kind === "dir" ? (hit) => hit.file : undefined,
      });
    },
  });
}

function findLines(file: string, text: string, regex: SafeRegex, around: number, width: number, signal: AbortSignal): LineHit[] {
  const lines = text.split(/\r?\n/);
  const hits: LineHit[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (i % 1024 === 0) signal.throwIfAborted();
    const line = lines[i]!;
    const at = regex.search(line);
    if (at < 0) continue;
    const context = around
      ? [...range(Math.max(0, i - around), i), ...range(i + 1, Math.min(lines.length, i + 1 + around))].map((j) => ({ line: j + 1, text: clipLine(lines[j]!, 0, width) }))
      : undefined;
    hits.push({ file, line: i + 1, text: clipLine(line, at, width), ...(context ? { context } : {}) });
  }
  return hits;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/** Filter to the commonest file type, then scope to the file with most matches, then page. */
function narrowings(context: CodeContext, base: Body, files: Distribution | undefined): Narrowing[] {
  const out: Narrowing[] = [];
  if (!files) return out;
  const exts = distribution(files.entries.map((f) => f.key.slice(f.key.lastIndexOf("/") + 1)).filter((n) => n.includes(".")).map((n) => n.slice(n.lastIndexOf("."))));
  if (!base.glob && exts.entries.length > 1) {
    const ext = exts.entries[0]!.key;
    out.push({ label: `filter to *${ext} files`, call: codeCall(context, "grep", { ...base, glob: `*${ext}` }) });
  }
  const top = files.entries[0];
  if (top && files.entries.length > 1) out.push({ label: `scope to ${top.key} (${top.count} matches)`, call: codeCall(context, "grep", { ...base, path: top.key, glob: undefined }) });
  return out;
}
