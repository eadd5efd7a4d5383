import * as z from "zod";
import type { TreeCursor } from "web-tree-sitter";
import { defineTool, type Body } from "../../builtin/backend.js";
import { formatCall, hint, recoverable } from "../../disclosure/guidance.js";
import { OutputGuard, type Distribution, type Narrowing } from "../../disclosure/guard.js";
import { escapeRegExp } from "../../util/glob.js";
import { codeCall, dropUndefined, globProblem, narrowPath, isTarget, PAGE_ARGS, target, type CodeContext } from "../context.js";
import { languageFor, type LanguageSpec } from "../languages.js";
import { describeSkips, scan } from "../scan.js";
import { clipLine, groupLines, type LineHit } from "./lines.js";

const referencesArgs = z.strictObject({
  symbol: z.string().min(1).describe('The identifier, e.g. "loadConfig" (one name, not "a.b").'),
  path: z.string().optional().describe("File or directory to look in, relative to the project root (default: the root)."),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts".'),
  ...PAGE_ARGS,
});

const CAP = 100;
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

export function referencesTool(context: CodeContext) {
  return defineTool({
    name: "references",
    title: "Find references",
    description:
      "Find every use of an identifier (who calls X, where a name is used), grouped by file, definitions marked [def]. Syntax-aware: skips strings and comments. Name-based: matches every identifier spelled the same, not resolved by type or scope.",
    args: referencesArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    narrow: (args) => narrowPath(context, args),

    async handle(args, { signal }): Promise<Body> {
      const base = dropUndefined({ ...args, offset: undefined }) as Body;
      if (!IDENTIFIER.test(args.symbol)) {
        const last = args.symbol
          .split(/[^\p{L}\p{N}_$]+/u)
          .filter(Boolean)
          .pop();
        const next = last ? codeCall(context, "references", { ...base, symbol: last }) : codeCall(context, "grep", { pattern: args.symbol });
        return recoverable("not_an_identifier", `"${args.symbol}" is not a single identifier.`, hint(`Look up one name: ${formatCall(next)}`, next));
      }
      const badGlob = globProblem(context, "references", base);
      if (badGlob) return badGlob;
      const start = await target(context, "references", base, args.path);
      if (!isTarget(start)) return start;
      let textOnly = 0;
      const word = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(args.symbol)}(?![\\p{L}\\p{N}_$])`, "u");
      const { results, report } = await scan(context.ws, {
        start,
        glob: args.glob,
        signal,
        each: async (info, read) => {
          const text = await read();
          if (text === undefined || !text.includes(args.symbol)) return undefined;
          const spec = languageFor(info.entry.rel);
          if (!spec) {
            if (word.test(text)) textOnly++;
            return undefined;
          }
          return context.parser.withTree(spec, text, (tree) => {
            const cursor = tree.walk();
            try {
              return occurrences(cursor, spec, args.symbol, info.entry.rel, text);
            } finally {
              cursor.delete();
            }
          });
        },
      });
      const hits = results.flat();
      const guard = OutputGuard.fromInput(args);
      const notes = [describeSkips(report, context.ws.limits.maxFileBytes)];
      if (textOnly) notes.push(`${textOnly} files in languages without a parser mention "${args.symbol}"; code:grep finds those.`);
      const note = notes.filter(Boolean).join(" ");
      if (!hits.length) {
        const next = codeCall(context, "grep", dropUndefined({ pattern: `\\b${escapeRegExp(args.symbol)}\\b`, path: args.path, glob: args.glob }));
        return {
          references: [],
          total: 0,
          ...(note ? { note } : {}),
          hint: `No identifier "${args.symbol}" in code outside strings and comments. Search all text: ${formatCall(next)}`,
          next,
        };
      }
      return guard.respond({
        items: hits,
        cap: CAP,
        budget: context.budget,
        render: (shown) => ({ references: groupLines(shown), ...(note ? { note } : {}) }),
        narrowings: (files) => narrowings(context, base, hits, files),
        pageCall: (offset) => codeCall(context, "references", { ...base, offset }),
        fileOf: start.kind === "dir" ? (hit) => hit.file : undefined,
      });
    },
  });
}

/** Leaf identifiers spelled `name`, in document order; each line once. */
function occurrences(cursor: TreeCursor, spec: LanguageSpec, name: string, file: string, text: string): LineHit[] {
  const hits: LineHit[] = [];
  let lines: string[] | undefined;
  let lastRow = -1;
  const visit = () => {
    do {
      const type = cursor.nodeType;
      const named = type.endsWith("identifier") || type === "constant" || type === "name";
      if (named && cursor.endIndex - cursor.startIndex === name.length && text.startsWith(name, cursor.startIndex)) {
        const { row, column } = cursor.startPosition;
        if (row !== lastRow) {
          lastRow = row;
          lines ??= text.split(/\r?\n/);
          const tag = isDefinition(cursor, spec) ? "[def] " : "";
          hits.push({ file, line: row + 1, text: tag + clipLine(lines[row] ?? "", column, 200) });
        }
      } else if (cursor.gotoFirstChild()) {
        visit();
        cursor.gotoParent();
      }
    } while (cursor.gotoNextSibling());
  };
  if (cursor.gotoFirstChild()) visit();
  return hits;
}

/** True when the identifier is the name of a definition (its parent defines a symbol through it). */
function isDefinition(cursor: TreeCursor, spec: LanguageSpec): boolean {
  const field = cursor.currentFieldName;
  if (field !== "name" && field !== "left") return false;
  const parent = cursor.currentNode.parent;
  return !!parent && spec.defs[parent.type] !== undefined;
}

function narrowings(context: CodeContext, base: Body, hits: LineHit[], files: Distribution | undefined): Narrowing[] {
  const defs = hits.filter((h) => h.text.startsWith("[def]"));
  const out: Narrowing[] = [];
  if (defs.length && defs.length < hits.length)
    out.push({
      label: `see the definition in ${defs[0]!.file}`,
      call: codeCall(context, "symbols", { name_path: String(base.symbol), path: defs[0]!.file, include_body: true }),
    });
  if (files && files.entries.length > 1)
    out.push({
      label: `scope to ${files.entries[0]!.key} (${files.entries[0]!.count} references)`,
      call: codeCall(context, "references", { ...base, path: files.entries[0]!.key, glob: undefined }),
    });
  return out;
}
