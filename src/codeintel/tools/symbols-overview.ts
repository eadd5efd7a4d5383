/**
 * code:symbols with neither pattern nor name_path: the outline of one file
 * (top-level symbols, cap 100, with their members) or of a directory (one
 * line of top-level symbols per file, cap 50 files, parsing only the files shown).
 */
import { stat } from "node:fs/promises";
import type { Body } from "../../builtin/backend.js";
import { formatCall, hint, recoverable } from "../../disclosure/guidance.js";
import { distribution, type Narrowing, type OutputGuard } from "../../disclosure/guard.js";
import { codeCall, type CodeContext } from "../context.js";
import { languageFor } from "../languages.js";
import { compact, outlineOf } from "../outline.js";
import type { CodeSymbol } from "../parser.js";
import { isReadRefusal, readText } from "../files.js";
import type { FileInfo } from "../scan.js";
import { walk, WorkMeter } from "../walk.js";
import type { Target } from "../workspace.js";
import type { SymbolsArgs } from "./symbols-args.js";

const FILE_CAP = 100;
const DIR_CAP = 50;
/** Members listed under a symbol, and top-level symbols listed per file in a directory overview. */
const MEMBERS_SHOWN = 30;
const PER_FILE_SHOWN = 20;

interface OverviewRequest {
  args: SymbolsArgs;
  base: Body;
  start: Target;
  guard: OutputGuard;
  signal: AbortSignal;
}

export async function overview(context: CodeContext, request: OverviewRequest): Promise<Body> {
  return request.start.kind === "file" ? fileOverview(context, request) : dirOverview(context, request);
}

async function fileOverview(context: CodeContext, { base, start, guard }: OverviewRequest): Promise<Body> {
  if (!languageFor(start.rel)) {
    const next = codeCall(context, "read_file", { path: start.rel, start_line: 1, end_line: 100 });
    return recoverable("unsupported_language", `${start.rel} is not in a language code:symbols parses.`, hint(`Read it instead: ${formatCall(next)}`, next));
  }
  const symbols = (await outline(context, start)) ?? [];
  const kinds = distribution(symbols.map((s) => s.kind));
  return guard.respond({
    items: symbols,
    cap: FILE_CAP,
    budget: context.budget,
    render: (shown) => ({ file: start.rel, symbols: shown.map((s) => describe(s, guard.focused)) }),
    narrowings: () =>
      kinds.entries.length > 1
        ? [{ label: `filter by kind "${kinds.entries[0]!.key}"`, call: codeCall(context, "symbols", { ...base, kind: kinds.entries[0]!.key }) }]
        : [],
    pageCall: (offset) => codeCall(context, "symbols", { ...base, offset }),
  });
}

async function dirOverview(context: CodeContext, { args, base, start, guard, signal }: OverviewRequest): Promise<Body> {
  const meter = new WorkMeter(context.ws.limits, signal);
  const files = (await walk(context.ws, { start, glob: args.glob }, meter)).filter((e) => e.kind === "file" && languageFor(e.rel));
  const outlines = new Map<string, CodeSymbol[]>();
  await Promise.all(
    guard.page(files, DIR_CAP).map(async (entry) => {
      const info = await stat(entry.abs).then(
        (s) => ({ size: s.size, mtimeMs: s.mtimeMs }),
        () => undefined,
      );
      if (!info || info.size > context.ws.limits.maxFileBytes) return;
      outlines.set(entry.rel, (await outline(context, { ...info, abs: entry.abs, rel: entry.rel, kind: "file" })) ?? []);
    }),
  );
  const busiest = [...outlines].sort((a, b) => b[1].length - a[1].length)[0];
  const exts = distribution(files.map((f) => f.rel.slice(f.rel.lastIndexOf("."))));
  return guard.respond({
    items: files,
    cap: DIR_CAP,
    budget: context.budget,
    render: (shown) => ({
      path: start.rel || ".",
      files: shown.map((f) => {
        const symbols = outlines.get(f.rel);
        if (!symbols) return { file: f.rel, skipped: `over ${context.ws.limits.maxFileBytes >> 10} KiB` };
        const more = symbols.length - PER_FILE_SHOWN;
        return { file: f.rel, symbols: symbols.slice(0, PER_FILE_SHOWN).map(compact), ...(more > 0 ? { more } : {}) };
      }),
      ...(meter.bounded ? { bounded: `The walk ${meter.bounded}.` } : {}),
    }),
    narrowings: () => {
      const out: Narrowing[] = [];
      if (!args.glob && exts.entries.length > 1)
        out.push({ label: `filter to *${exts.entries[0]!.key} files`, call: codeCall(context, "symbols", { ...base, glob: `*${exts.entries[0]!.key}` }) });
      if (busiest)
        out.push({
          label: `scope to ${busiest[0]} (${busiest[1].length} top-level symbols)`,
          call: codeCall(context, "symbols", { ...base, path: busiest[0], glob: undefined }),
        });
      return out;
    },
    pageCall: (offset) => codeCall(context, "symbols", { ...base, offset }),
  });
}

async function outline(context: CodeContext, file: Target): Promise<CodeSymbol[] | undefined> {
  const info: FileInfo = { entry: { rel: file.rel, abs: file.abs, kind: "file", depth: 0 }, size: file.size, mtimeMs: file.mtimeMs };
  return outlineOf(context.parser, info, async () => {
    const read = await readText(file.abs, context.ws.read);
    return isReadRefusal(read) ? undefined : read.text;
  });
}

function describe(symbol: CodeSymbol, focused: boolean): Body {
  const members = symbol.children;
  const shown = focused ? members : members.slice(0, MEMBERS_SHOWN);
  return {
    name: symbol.name,
    kind: symbol.kind,
    line: symbol.startLine,
    ...(focused ? { end_line: symbol.endLine } : {}),
    ...(members.length ? { members: shown.map(compact) } : {}),
    ...(shown.length < members.length
      ? { more_members: `${members.length - shown.length} more: add detail_level "full", or search pattern "${symbol.namePath}/"` }
      : {}),
  };
}
