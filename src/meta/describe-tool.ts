/**
 * describe_tool: one to five tools at summary, schema or full detail.
 */
import * as z from "zod";
import { DEFAULTS } from "../config/defaults.js";
import { fitItems, jsonBytes } from "../disclosure/budget.js";
import { formatCall, guidanceFields, hint, recoverable, warning, type NextCall, type Refusal } from "../disclosure/guidance.js";
import type { ToolRecord } from "../model/tool.js";
import { MAX_TOOL_ID_CHARS, quarantineNote, unknownTool, suggestIds } from "./lookup.js";
import { abridgeDoc, DETAIL_LEVELS, DOC_FORMATS, toolDoc, type DetailLevel, type DocFormat } from "./tool-doc.js";
import type { DescribeMany, DescribeOne, UnknownId } from "./reply.js";
import { defineMetaTool } from "./types.js";

const toolId = z.string().max(MAX_TOOL_ID_CHARS);

const describeArgs = z.strictObject({
  tool_id: toolId.optional().describe("namespace:tool"),
  tool_ids: z.array(toolId).min(1).max(5).optional(),
  detail_level: z.enum(DETAIL_LEVELS).optional(),
  examples_max: z.int().min(0).max(10).optional().describe(`Default ${DEFAULTS.describe.examplesMax}.`),
  format: z.enum(DOC_FORMATS).optional().describe("typescript: the tool as one declaration (for programs) instead of JSON Schemas."),
});

export const describeTool = defineMetaTool({
  name: "describe_tool",
  description: "A tool's schema before calling it; detail_level full adds notes and examples. tool_ids: up to 5.",
  args: describeArgs,
  // Not in the listed schema (the three definitions are paid every turn): run_program's docs and the instructions name format.
  unlisted: ["examples_max", "format"],
  annotations: { title: "Describe tool", readOnlyHint: true, openWorldHint: false },

  async handle(args, { services, budget }) {
    const level = args.detail_level ?? "schema";
    const examplesMax = args.examples_max ?? DEFAULTS.describe.examplesMax;
    const format = args.format ?? "json_schema";
    // The calls offered for more keep the format asked for.
    const asked = args.format ? { format: args.format } : {};
    const ids = [...new Set([...(args.tool_id ? [args.tool_id] : []), ...(args.tool_ids ?? [])])];
    if (!ids.length) {
      const next: NextCall = { tool: "search_tools", arguments: { query: "" } };
      return recoverable("missing_tool_id", "Pass tool_id (or tool_ids).", hint(`Find ids with search_tools, e.g. ${formatCall(next)}`, next));
    }
    if (ids.length > 5) {
      const next: NextCall = { tool: "describe_tool", arguments: { tool_ids: ids.slice(0, 5), detail_level: level, ...asked } };
      return recoverable("too_many_ids", `At most 5 tools per call; got ${ids.length}.`, hint(`Describe them in batches: ${formatCall(next)}`, next));
    }
    const records = ids.map((id) => services.registry.get(id));
    const retry = (id: string): NextCall => ({ tool: "describe_tool", arguments: { tool_id: id, detail_level: level, ...asked } });
    if (ids.length === 1) {
      return records[0] ? single(records[0], level, examplesMax, budget, format) : unknownTool(services, ids[0]!, retry);
    }
    const found = records.filter((r): r is ToolRecord => !!r);
    // A quarantined tool is named as such, with nothing of its definition (lookup.ts).
    const unknown = ids
      .filter((_, i) => !records[i])
      .map((id): UnknownId => {
        const held = services.registry.quarantineOf(id);
        return held ? { id, did_you_mean: [], quarantine: quarantineNote(id, held) } : { id, did_you_mean: suggestIds(services, id) };
      });
    const { value, shown } = fitItems(found, budget - 600, (subset) => ({ tools: subset.map((r) => toolDoc(r, level, examplesMax, format)) }));
    const rest = found.slice(shown).map((r) => r.id);
    const body: DescribeMany = { ...value, ...(unknown.length ? { unknown } : {}) };
    if (rest.length) {
      const next: NextCall = { tool: "describe_tool", arguments: { tool_ids: rest, detail_level: level, ...asked } };
      Object.assign(body, { not_shown: rest }, guidanceFields(warning(`${rest.length} tool(s) did not fit the response budget: ${formatCall(next)}`, next)));
    } else if (unknown.length && unknown[0]!.did_you_mean.length) {
      const next = retry(unknown[0]!.did_you_mean[0]!);
      Object.assign(body, guidanceFields(hint(`Unknown: ${unknown.map((u) => u.id).join(", ")}. Did you mean: ${formatCall(next)}`, next)));
    }
    return body;
  },
});

/** One tool; a schema too large for the budget is abridged level by level, and the response says so. */
function single(record: ToolRecord, level: DetailLevel, examplesMax: number, budget: number, format: DocFormat): DescribeOne | Refusal {
  const doc = toolDoc(record, level, examplesMax, format);
  if (jsonBytes(doc) <= budget) return doc;
  for (let depth = 6; depth >= 1; depth--) {
    const cut = abridgeDoc(doc, depth);
    const text = `The schema is larger than the response budget, so parts nested deeper than ${depth} levels are elided (marked "…"). The elided parts are not needed for most calls; ask the tool's maintainers for a flatter schema if they are.`;
    const body = { ...cut, ...guidanceFields(warning(text)) };
    if (jsonBytes(body) <= budget) return body;
  }
  const next: NextCall = { tool: "describe_tool", arguments: { tool_id: record.id, detail_level: "summary" } };
  return recoverable(
    "too_large",
    `The docs of ${record.id} do not fit the response budget even abridged.`,
    hint(`Read the summary: ${formatCall(next)}`, next),
  );
}
