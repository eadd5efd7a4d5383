import * as z from "zod";
import { defineTool, type Body } from "../../builtin/backend.js";
import { formatCall, hint, recoverable } from "../../disclosure/guidance.js";
import { distribution, OutputGuard, type Distribution, type Narrowing } from "../../disclosure/guard.js";
import { escapeRegExp } from "../../util/glob.js";
import { compileRegex, MAX_PATTERN, shownPattern, smartCaseInsensitive, type SafeRegex } from "../../util/regex.js";
import type { LineMatch } from "../../util/regex-worker.js";
import { codeCall, dropUndefined, globProblem, narrowPath, isTarget, PAGE_ARGS, target, type CodeContext } from "../context.js";
import { describeSkips, scan } from "../scan.js";
import { clipLine, groupLines, type LineHit } from "./lines.js";

const grepArgs = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(MAX_PATTERN)
    .describe('Regular expression, e.g. "TODO|FIXME" or "function\\\\s+load". Escape . ( [ etc. to match them literally.'),
  path: z.string().optional().describe('File or directory to search, relative to the project root (default: the root). Example: "src".'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.py".'),
  context_lines: z.int().min(0).max(10).optional().describe("Lines of context before and after each match (default 0)."),
  case_sensitive: z.boolean().optional().describe("Match case exactly. Default: only when the pattern contains a capital letter."),
  ...PAGE_ARGS,
});

const CAP = 200;

export function grepTool(context: CodeContext) {
  return defineTool({
    name: "grep",
    title: "Search file contents",
    description:
      "Search the project's text files with a regular expression (RE2 syntax, as in ripgrep: JavaScript's without lookaround or backreferences), like ripgrep: matching lines with line numbers, grouped by file, with by_file counts over all matches. Skips .gitignored, binary and secret files. Case-insensitive unless the pattern has a capital letter.",
    args: grepArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    narrow: (args) => narrowPath(context, args),

    async handle(args, { signal }): Promise<Body> {
      const base = dropUndefined({ ...args, offset: undefined }) as Body;
      const caseSensitive = args.case_sensitive ?? !smartCaseInsensitive(args.pattern);
      let regex: SafeRegex;
      try {
        regex = compileRegex(args.pattern, { ignoreCase: !caseSensitive, multiline: true });
      } catch (error) {
        const literal = escapeRegExp(args.pattern.slice(0, MAX_PATTERN / 2));
        const next = codeCall(context, "grep", { ...base, pattern: literal });
        return recoverable(
          "invalid_regex",
          `/${shownPattern(args.pattern, 100)}/ is not a usable regular expression: ${(error as Error).message}.`,
          hint(`To search for the text literally, escape the special characters: ${formatCall(next)}`, next),
        );
      }
      const badGlob = globProblem(context, "grep", base);
      if (badGlob) return badGlob;
      const start = await target(context, "grep", base, args.path);
      if (!isTarget(start)) return start;
      const guard = OutputGuard.fromInput(args);
      const around = args.context_lines ?? 0;
      // Small files are searched here; large ones in a worker that the deadline terminates.
      const searcher = context.matchers.open(regex, signal);
      const { results, report } = await scan(context.ws, {
        start,
        glob: args.glob,
        signal,
        policy: context.ws.searchRead,
        each: async (info, read) => {
          const text = await read();
          if (text === undefined) return undefined;
          const found = await searcher.search(text);
          return found.length ? hitsIn(info.entry.rel, text, found, around, guard.focused ? 1000 : 240, context.ws.read.redact) : undefined;
        },
      }).finally(() => searcher.close());
      const hits = results.flat();
      const note = describeSkips(report, context.ws.limits.maxFileBytes);
      return guard.respond({
        items: hits,
        cap: CAP,
        budget: context.budget,
        render: (shown) => ({
          files: groupLines(shown),
          ...(hits.length === 0 ? { hint: `No line matches /${shownPattern(args.pattern, 100)}/${caseSensitive ? "" : "i"} in ${report.files} files.` } : {}),
          ...(note ? { note } : {}),
        }),
        narrowings: (files) => narrowings(context, base, files),
        pageCall: (offset) => codeCall(context, "grep", { ...base, offset }),
        fileOf: start.kind === "dir" ? (hit) => hit.file : undefined,
      });
    },
  });
}

/** Grep's lines for the matches found in one file: each cut around its match, with context lines when asked. */
function hitsIn(file: string, text: string, found: readonly LineMatch[], around: number, width: number, redact = (line: string) => line): LineHit[] {
  const lines = text.split(/\r?\n/);
  // Every line shown is redacted whole before it is cut: a cut must not leave a piece of a secret.
  const shown = (j: number) => redact(lines[j] ?? "");
  return found.map(({ line, at }) => {
    const i = line - 1;
    const context = around
      ? [...range(Math.max(0, i - around), i), ...range(i + 1, Math.min(lines.length, i + 1 + around))].map((j) => ({
          line: j + 1,
          text: clipLine(shown(j), 0, width),
        }))
      : undefined;
    const own = shown(i);
    return { file, line, text: clipLine(own, Math.min(at, own.length), width), ...(context ? { context } : {}) };
  });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/** Filter to the commonest file type, then scope to the file with most matches, then page. */
function narrowings(context: CodeContext, base: Body, files: Distribution | undefined): Narrowing[] {
  const out: Narrowing[] = [];
  if (!files) return out;
  const exts = distribution(
    files.entries
      .map((f) => f.key.slice(f.key.lastIndexOf("/") + 1))
      .filter((n) => n.includes("."))
      .map((n) => n.slice(n.lastIndexOf("."))),
  );
  if (!base.glob && exts.entries.length > 1) {
    const ext = exts.entries[0]!.key;
    out.push({ label: `filter to *${ext} files`, call: codeCall(context, "grep", { ...base, glob: `*${ext}` }) });
  }
  const top = files.entries[0];
  if (top && files.entries.length > 1)
    out.push({ label: `scope to ${top.key} (${top.count} matches)`, call: codeCall(context, "grep", { ...base, path: top.key, glob: undefined }) });
  return out;
}
