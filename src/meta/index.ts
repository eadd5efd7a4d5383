/**
 * The three meta-tools, adapted to the MCP plumbing: arguments are validated
 * at this edge, every call is a span with metrics, and every response is held
 * to the byte budget here as a last line of defence behind each tool's own fitting.
 */
import type { MetaServices } from "./services.js";
import { DEFAULTS } from "../config/defaults.js";
import { jsonBytes } from "../disclosure/budget.js";
import { formatCall, hint, recoverable, type NextCall } from "../disclosure/guidance.js";
import { correctArgs, explainErrors } from "../exec/explain.js";
import { SchemaValidator } from "../exec/validator.js";
import { ATTR, type Operation } from "../observe/telemetry.js";
import { LOCAL_PRINCIPAL } from "../security/principal.js";
import { splitToolId } from "../model/tool.js";
import { mapStrings } from "../util/data.js";
import { redactDeep, redactError } from "../util/redact.js";
import { redactContent } from "../backends/redacting.js";
import type { CallExtra, ServedTool } from "../server/definition.js";
import { auditRun, type AuditedCall } from "./audit.js";
import { describeTool } from "./describe-tool.js";
import { scopedFor } from "./scoped.js";
import { runTool } from "./run-tool.js";
import { searchTools } from "./search-tools.js";
import { SessionNotices } from "./notices.js";
import { shapeProblem } from "./shape.js";
import { advertisedSchema, ATTACHED, type MetaBody, type MetaContext, type MetaTool, type RunNote } from "./types.js";
import type { MetaToolName, Replies, Reply } from "./reply.js";

export const META_TOOLS: readonly MetaTool[] = [searchTools, describeTool, runTool];

const OPERATIONS: Record<MetaTool["name"], Operation> = { search_tools: "search", describe_tool: "describe", run_tool: "run" };

/**
 * The span for one call: `metatools.search`, `metatools.describe`, or
 * `tool.exec <id>` with the tool's id and namespace. An id that names no
 * tool is whatever the agent typed: it goes in `metatools.tool.requested`,
 * and the span and metrics say `(unknown)`, so their cardinality stays bounded.
 */
function spanOf(services: MetaServices, name: MetaTool["name"], args: Record<string, unknown>): { name: string; attributes: Record<string, string> } {
  const id = typeof args.tool_id === "string" ? args.tool_id : undefined;
  const known = id !== undefined && services.registry.get(id) !== undefined;
  if (name !== "run_tool") return { name: `metatools.${OPERATIONS[name]}`, attributes: known && name === "describe_tool" ? { [ATTR.toolId]: id } : {} };
  if (!known)
    return {
      name: "tool.exec (unknown)",
      attributes: { [ATTR.toolId]: "(unknown)", [ATTR.namespace]: "(unknown)", [ATTR.requested]: String(id ?? "").slice(0, 200) },
    };
  const namespace = splitToolId(id)?.namespace ?? "?";
  return { name: `tool.exec ${id}`, attributes: { [ATTR.toolId]: id, [ATTR.namespace]: namespace, [ATTR.genAiTool]: id } };
}

/** Calls meta-tool `name` with raw arguments; the reply is that tool's (reply.ts). */
export type MetaDispatcher = <N extends MetaToolName>(name: N, args: Record<string, unknown>, extra?: Partial<CallExtra>) => Promise<MetaBody<Replies[N]>>;

/**
 * Calls a meta-tool by name with raw arguments: validation, dispatch,
 * telemetry, budget. Used by the server and the CLI. A call without a
 * principal is the local user's (stdio, the CLI).
 */
export function createMetaDispatcher(all: MetaServices): MetaDispatcher {
  const byName = new Map(META_TOOLS.map((t) => [t.name, t]));
  const validator = new SchemaValidator();
  const notices = all.notices ?? new SessionNotices();
  const dispatcher = async <N extends MetaToolName>(name: N, args: Record<string, unknown>, extra: Partial<CallExtra> = {}): Promise<MetaBody<Replies[N]>> => {
    const tool = byName.get(name);
    if (!tool) throw new Error(`unknown meta-tool "${name}"`);
    // Everything this call reads and runs is what the caller's profile shows (scoped.ts).
    const services = scopedFor(all, extra.profile);
    const span = spanOf(services, tool.name, args);
    return services.telemetry.measure(OPERATIONS[tool.name], span.name, span.attributes, async (notes) => {
      // Every run_tool call leaves one audit record, whatever its end (audit.ts); a tool outside the caller's profile is named too.
      const audited = tool.name === "run_tool" ? auditedCall(tool, args, extra) : undefined;
      const audit = (status: string) => audited && auditRun(all, notes, audited, status);
      const principal = extra.principal ?? LOCAL_PRINCIPAL;
      const caller = extra.caller ?? principal;
      // A run_tool call holds one of its caller's call slots until it ends (a task too: it is a call still running).
      const admitted = tool.name === "run_tool" ? await services.shares?.call(caller) : undefined;
      // One place for the budget, whichever way the reply was made (a refusal can quote what was sent).
      let raw: MetaBody;
      try {
        raw =
          admitted && "refusal" in admitted
            ? admitted.refusal
            : await dispatch(services, validator, tool, args, {
                signal: extra.signal,
                onProgress: extra.onProgress,
                span: notes,
                principal,
                caller,
                // Every question of this call, metatools' own or a backend's, takes one of its caller's question slots while it waits.
                peer: extra.peer && services.shares ? services.shares.peer(extra.peer, caller) : extra.peer,
                session: extra.session,
                profile: extra.profile,
                ...(extra.typed ? { typed: true } : {}),
                ...(audited ? { note: audited.note } : {}),
                ...(extra.session ? { changed: (topic: string, key: string) => notices.changed(extra.session!, topic, key) } : {}),
                again: (again, againArgs) => dispatcher(again, againArgs, extra),
              });
      } catch (error) {
        audit("fault");
        // A fault's message reaches the client, the span and the log.
        throw redactError(error, services.redact);
      } finally {
        if (admitted && "slot" in admitted) admitted.slot.release();
      }
      // Redacted before the budget may shorten strings: a cut through a secret would leave a piece no redactor knows.
      const body = enforceBudget(redactDeep(raw, services.redact), services.config.budgets.inlineBytes, tool.name);
      const attached = raw[ATTACHED];
      // Secrets leave a link's or a resource's words, never base64 data: a secret's letters met by chance in an encoding are not the secret.
      if (attached?.length) body[ATTACHED] = attached.map((block) => redactContent(block, services.redact));
      notes.set({ [ATTR.outcome]: outcomeOf(body), [ATTR.bytes]: jsonBytes(body), [ATTR.handle]: madeHandle(body, args) });
      audit(outcomeOf(body));
      // The tool of that name made it, or it is a refusal, which every tool's replies include.
      return body as MetaBody<Replies[N]>;
    });
  };
  return dispatcher;
}

async function dispatch(
  services: MetaServices,
  validator: SchemaValidator,
  tool: MetaTool,
  args: Record<string, unknown>,
  context: Omit<MetaContext, "services" | "budget">,
): Promise<MetaBody> {
  const budget = services.config.budgets.inlineBytes;
  // An object sent as JSON text (`"args": "{\"path\": …}"`, a frequent slip) is read as the object it spells.
  args = withJsonObjects(tool.inputSchema, args);
  // The shape first: nothing, not even the validator, walks a hostile structure.
  const bad = shapeProblem(args);
  if (bad)
    return recoverable(
      "invalid_args",
      `Arguments for ${tool.name} were refused at ${bad.path}: ${bad.problem}.`,
      hint("Send plain JSON data: fewer levels, less of it, and no __proto__ keys."),
      { problems: [{ field: bad.path, expected: bad.problem }] },
    );
  // A well-formed call passes the quick check; the JSON Schema the agent sees decides and explains any other.
  const check = tool.accepts(args) ? { ok: true as const } : validator.validate(tool.inputSchema, args);
  if (check.ok === false) {
    const problems = explainErrors(check.errors, args, tool.inputSchema);
    const repair = correctArgs(tool.inputSchema, args, check.errors);
    const message = `Arguments for ${tool.name} do not match its schema: ${problems.map((p) => `${p.field}: expected ${p.expected}`).join("; ")}.`;
    // A corrected call only when it can run as written; a value only the agent knows is asked for, never made up.
    if (repair.unknown.length || validator.validate(tool.inputSchema, repair.args).ok === false) {
      return recoverable("invalid_args", message, hint(missingHint(tool.name, repair.unknown)), { problems });
    }
    const next: NextCall = { tool: tool.name, arguments: repair.args };
    return recoverable("invalid_args", message, hint(`Corrected call: ${formatCall(next)}`, next), { problems });
  }
  return tool.handle(args, { services, budget, ...context });
}

/** A run_tool call as it begins, for its audit record: its arguments as they will be dispatched (a JSON text of an object read as the object). */
function auditedCall(tool: MetaTool, args: Record<string, unknown>, extra: Partial<CallExtra>): AuditedCall {
  const note: RunNote = {};
  const sent = withJsonObjects(tool.inputSchema, args);
  return {
    toolId: sent.tool_id,
    toolArgs: sent.args,
    principal: extra.principal ?? LOCAL_PRINCIPAL,
    profile: extra.profile,
    note,
    startedAt: Date.now(),
    started: performance.now(),
  };
}

/** `args` with each top-level field the schema wants as an object, and that came as a JSON text of one, parsed. */
function withJsonObjects(schema: MetaTool["inputSchema"], args: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  let out = args;
  for (const [name, value] of Object.entries(args)) {
    if (properties[name]?.type !== "object" || typeof value !== "string" || !value.trimStart().startsWith("{")) continue;
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) out = { ...out, [name]: parsed };
    } catch {
      // Not JSON: validation says what is wrong.
    }
  }
  return out;
}

/** What to supply when a meta-tool's required argument is missing: for run_tool's tool_id, where to find one. */
function missingHint(tool: string, unknown: readonly string[]): string {
  const fields = unknown.filter((f) => f !== "args").map((f) => f.replace(/^args\./, ""));
  if (tool === "run_tool" && fields.includes("tool_id"))
    return "run_tool needs tool_id, the id of the tool to run (namespace:name): find it with search_tools, describing the task in plain words, then call run_tool with that id and the tool's arguments.";
  if (tool === "describe_tool" && fields.includes("tool_id"))
    return "describe_tool needs tool_id (namespace:name): find it with search_tools, describing the task in plain words.";
  return fields.length
    ? `Send ${fields.map((f) => `"${f}"`).join(", ")}: only you know ${fields.length === 1 ? "its value" : "their values"}; see the tool's input schema.`
    : "Send arguments that match the input schema.";
}

/** Whether the reply hands out a handle this call made: a `read_output` slice names the handle it read, which it did not make. */
function madeHandle(body: Reply, args: Record<string, unknown>): boolean {
  const read = args.args && typeof args.args === "object" ? (args.args as Record<string, unknown>).handle : undefined;
  return typeof body.handle === "string" && body.handle !== read;
}

/** `ok`, or the error code when it looks like one (a backend's own structured errors can carry anything). */
function outcomeOf(body: Reply): string {
  if (body.ok !== false) return "ok";
  const code = body.error.code;
  return /^[a-z][a-z0-9_]{0,39}$/.test(code) ? code : "error";
}

/** The `_meta` key by which Claude Code loads a tool at once instead of deferring it. */
export const ALWAYS_LOAD_META_KEY = "anthropic/alwaysLoad";

export function servedTools(services: MetaServices): ServedTool[] {
  const dispatch = createMetaDispatcher(services);
  // A client that defers tools behind its own search (Claude Code) loads these at once: they are the search.
  const alwaysLoad = services.config.serve?.alwaysLoad ?? DEFAULTS.serve.alwaysLoad;
  return META_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: advertisedSchema(tool) as ServedTool["inputSchema"],
    // Only what changes how a client treats the call: titles and open-world flags cost tokens in every session.
    annotations: {
      ...(tool.annotations.readOnlyHint !== undefined ? { readOnlyHint: tool.annotations.readOnlyHint } : {}),
      ...(tool.annotations.destructiveHint ? { destructiveHint: true } : {}),
    },
    ...(alwaysLoad ? { _meta: { [ALWAYS_LOAD_META_KEY]: true } } : {}),
    async call(args, extra) {
      const body = await dispatch(tool.name, args, extra);
      // A backend's images, audio, links and resources follow the JSON as content of their own.
      return { content: [{ type: "text" as const, text: JSON.stringify(body) }, ...(body[ATTACHED] ?? [])] };
    },
  }));
}

/**
 * Each tool fits its own output; should one fail to (usually an error
 * quoting a huge value the caller sent), long strings are shortened, and if
 * that is not enough the body is replaced rather than send too much.
 */
function enforceBudget(body: MetaBody, budget: number, tool: string): MetaBody {
  const size = jsonBytes(body);
  if (size <= budget) return body;
  const shortened = shortenStrings(body, 200) as MetaBody;
  if (jsonBytes(shortened) <= budget) return shortened;
  return recoverable(
    "over_budget",
    `${tool} built a ${size}-byte response, over the ${budget}-byte budget; it was withheld.`,
    hint("Ask for less: a smaller limit, one tool id, or a lower detail_level."),
  );
}

/** A copy with every string over `max` characters cut, saying how long it was. */
function shortenStrings(value: unknown, max: number): unknown {
  return mapStrings(value, (text) => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text));
}
