import * as z from "zod";
import { stat } from "node:fs/promises";
import { defineTool, type Body } from "../../builtin/backend.js";
import { distribution, OutputGuard, type Narrowing } from "../../disclosure/guard.js";
import { codeCall, dropUndefined, globProblem, narrowPath, isTarget, PAGE_ARGS, target, type CodeContext } from "../context.js";
import { walk, WorkMeter, type WalkEntry } from "../walk.js";

const treeArgs = z.strictObject({
  path: z.string().optional().describe('Directory to list, relative to the project root (default: the root). Example: "src".'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.py" (any depth) or "src/**/*.ts".'),
  depth: z.int().min(1).max(100).optional().describe("How many levels below path to list (default 2, or unlimited with glob)."),
  ...PAGE_ARGS,
});
type TreeArgs = z.output<typeof treeArgs>;

const CAP = 200;
const DEFAULT_DEPTH = 2;

export function treeTool(context: CodeContext) {
  return defineTool({
    name: "tree",
    title: "Project tree",
    description:
      "List the files and directories of the project (or under path), honouring .gitignore: directories end with /, symlinks with @. Filter with a glob (*.ts, src/**/*.test.ts); depth limits how deep it goes (default 2; unlimited with a glob).",
    args: treeArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    narrow: (args) => narrowPath(context, args),

    async handle(args, { signal }): Promise<Body> {
      const badGlob = globProblem(context, "tree", args);
      if (badGlob) return badGlob;
      const start = await target(context, "tree", args, args.path);
      if (!isTarget(start)) return start;
      const depth = args.depth ?? (args.glob ? undefined : DEFAULT_DEPTH);
      const meter = new WorkMeter(context.ws.limits, signal);
      const entries = await walk(context.ws, { start, maxDepth: depth, glob: args.glob, dirs: !args.glob }, meter);
      const guard = OutputGuard.fromInput(args);
      const base = dropUndefined({ path: args.path, glob: args.glob, depth: args.depth, detail_level: args.detail_level, limit: args.limit });
      const details = guard.focused ? await sizes(guard.page(entries, CAP)) : undefined;
      return guard.respond({
        items: entries,
        cap: CAP,
        budget: context.budget,
        render: (shown) => ({
          root: start.rel || ".",
          entries: shown.map((e) => details?.get(e.abs) ?? label(e)),
          ...(meter.secret ? { skipped_secret: meter.secret } : {}),
          ...(meter.bounded ? { bounded: `The walk ${meter.bounded}; total counts what was walked.` } : {}),
        }),
        narrowings: () => narrowings(context, args, base, start.rel, entries),
        pageCall: (offset) => codeCall(context, "tree", { ...base, offset }),
      });
    },
  });
}

function label(entry: WalkEntry): string {
  return entry.kind === "dir" ? `${entry.rel}/` : entry.kind === "symlink" ? `${entry.rel}@` : entry.rel;
}

async function sizes(entries: WalkEntry[]): Promise<Map<string, Body>> {
  const out = new Map<string, Body>();
  await Promise.all(
    entries.map(async (e) => {
      const bytes =
        e.kind === "file"
          ? await stat(e.abs).then(
              (s) => s.size,
              () => undefined,
            )
          : undefined;
      out.set(e.abs, { path: label(e), kind: e.kind, ...(bytes !== undefined ? { bytes } : {}) });
    }),
  );
  return out;
}

/** Filter by the commonest extension, then scope to the biggest subdirectory, then go shallower. */
function narrowings(context: CodeContext, args: TreeArgs, base: Body, startRel: string, entries: WalkEntry[]): Narrowing[] {
  const out: Narrowing[] = [];
  if (!args.glob) {
    const ext = distribution(entries.filter((e) => e.kind === "file" && /\.[^/.]+$/.test(e.rel)).map((e) => e.rel.slice(e.rel.lastIndexOf(".")))).entries[0];
    if (ext) out.push({ label: `filter to the ${ext.count} *${ext.key} files`, call: codeCall(context, "tree", { ...base, glob: `*${ext.key}` }) });
  }
  const prefix = startRel ? `${startRel}/` : "";
  const child = distribution(entries.filter((e) => e.rel.slice(prefix.length).includes("/")).map((e) => prefix + e.rel.slice(prefix.length).split("/")[0]!))
    .entries[0];
  if (child) out.push({ label: `scope to ${child.key}/ (${child.count} entries)`, call: codeCall(context, "tree", { ...base, path: child.key }) });
  if ((args.depth ?? DEFAULT_DEPTH) > 1 && !args.glob) out.push({ label: "list one level only", call: codeCall(context, "tree", { ...base, depth: 1 }) });
  return out;
}
