import { defineTool, type Body } from "../../builtin/backend.js";
import { OutputGuard } from "../../disclosure/guard.js";
import { dropUndefined, globProblem, narrowPath, isTarget, target, type CodeContext } from "../context.js";
import { LANGUAGE_NAMES, languageFor } from "../languages.js";
import { collectMatching, findByNamePath, outlineOf, type Located } from "../outline.js";
import { describeSkips, scan } from "../scan.js";
import { overview } from "./symbols-overview.js";
import { presentMatches } from "./symbols-matches.js";
import { symbolsArgs } from "./symbols-args.js";

export type { SymbolsArgs } from "./symbols-args.js";

export function symbolsTool(context: CodeContext) {
  return defineTool({
    name: "symbols",
    title: "Code symbols",
    description: `Find where functions, classes and methods are defined (tree-sitter; ${LANGUAGE_NAMES}). No pattern: outline of a file or directory. pattern: definitions whose name contains it, anywhere. name_path ("Class/method"): that exact symbol; include_body for its source.`,
    args: symbolsArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    narrow: (args) => narrowPath(context, args),

    async handle(args, { signal }): Promise<Body> {
      const badGlob = globProblem(context, "symbols", args);
      if (badGlob) return badGlob;
      const start = await target(context, "symbols", args, args.path);
      if (!isTarget(start)) return start;
      const guard = OutputGuard.fromInput({ ...args, detail_level: args.include_body ? "full" : args.detail_level });
      const base = dropUndefined({ ...args, offset: undefined }) as Body;
      if (args.name_path === undefined && args.pattern === undefined && args.kind === undefined) {
        return overview(context, { args, base, start, guard, signal });
      }
      const exact = args.name_path !== undefined;
      const needle = (exact ? args.name_path!.split("/").pop()! : (args.pattern ?? "").split("/").pop()!).toLowerCase();
      const { results, report } = await scan(context.ws, {
        start,
        glob: args.glob,
        signal,
        accept: (entry) => languageFor(entry.rel) !== undefined,
        each: async (info, read) => {
          const outline = await outlineOf(context.parser, info, read, needle || undefined);
          if (!outline?.length) return undefined;
          const found = exact ? findByNamePath(outline, args.name_path!) : collectMatching(outline, args.pattern ?? "", args.kind);
          return found.map((symbol): Located => ({ file: info.entry.rel, abs: info.entry.abs, symbol }));
        },
      });
      const matches = results.flat();
      return presentMatches(context, { args, base, start, guard, matches, note: describeSkips(report, context.ws.limits.maxFileBytes) });
    },
  });
}
