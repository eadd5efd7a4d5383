/**
 * The three meta-tools, adapted to the MCP plumbing: arguments are validated
 * at this edge, and every response is held to the byte budget here as a last
 * line of defence behind each tool's own fitting.
 */
import type { Metatools } from "../app.js";
import { jsonBytes } from "../disclosure/budget.js";
import { formatCall, hint, recoverable, type NextCall } from "../disclosure/guidance.js";
import { correctArgs, explainErrors } from "../exec/explain.js";
import { SchemaValidator } from "../exec/validator.js";
import type { ServedTool } from "../server/mcp.js";
import { describeTool } from "./describe-tool.js";
import { runTool } from "./run-tool.js";
import { searchTools } from "./search-tools.js";
import type { MetaBody, MetaTool } from "./types.js";

export const META_TOOLS: readonly MetaTool[] = [searchTools, describeTool, runTool];

/** Calls a meta-tool by name with raw arguments: validation, dispatch, budget. Used by the server and the CLI. */
export function createMetaDispatcher(app: Metatools) {
  const validator = new SchemaValidator();
  const byName = new Map(META_TOOLS.map((t) => [t.name, t]));
  const budget = app.config.budgets.inlineBytes;
  return async (name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<MetaBody> => {
    const tool = byName.get(name as MetaTool["name"]);
    if (!tool) throw new Error(`unknown meta-tool "${name}"`);
    const check = validator.validate(tool.inputSchema, args);
    if (check.ok === false) {
      const problems = explainErrors(check.errors, args, tool.inputSchema);
      const next: NextCall = { tool: tool.name, arguments: correctArgs(tool.inputSchema, args, check.errors) };
      return recoverable(
        "invalid_args",
        `Arguments for ${tool.name} do not match its schema: ${problems.map((p) => `${p.field}: expected ${p.expected}`).join("; ")}.`,
        hint(`Corrected call: ${formatCall(next)}`, next),
        { problems },
      );
    }
    const body = await tool.handle(args, { app, budget, signal });
    return enforceBudget(body, budget, tool.name);
  };
}

export function servedTools(app: Metatools): ServedTool[] {
  const dispatch = createMetaDispatcher(app);
  return META_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
    async call(args, extra) {
      const body = await dispatch(tool.name, args, extra.signal);
      return { content: [{ type: "text" as const, text: JSON.stringify(body) }] };
    },
  }));
}

/** Each tool fits its own output; should one fail to, this replaces the body rather than send too much. */
function enforceBudget(body: MetaBody, budget: number, tool: string): MetaBody {
  const size = jsonBytes(body);
  if (size <= budget) return body;
  return recoverable("over_budget", `${tool} built a ${size}-byte response, over the ${budget}-byte budget; it was withheld.`, hint("Ask for less: a smaller limit, one tool id, or a lower detail_level."));
}
