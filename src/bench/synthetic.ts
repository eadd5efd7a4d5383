/**
 * Deterministic synthetic tool sets for benchmarks and scale tests: varied
 * names, descriptions and parameters drawn from a seeded generator, so index
 * statistics look like a real many-server catalog and runs are repeatable.
 */
import { seededRandom } from "../util/random.js";

export interface SyntheticTool {
  id: string;
  server: string;
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, { type: string; description: string }>; required: string[] };
}

const VERBS = [
  "get",
  "list",
  "create",
  "update",
  "delete",
  "search",
  "send",
  "fetch",
  "sync",
  "export",
  "import",
  "archive",
  "share",
  "render",
  "validate",
  "schedule",
  "cancel",
  "merge",
  "translate",
  "summarize",
];
const OBJECTS = [
  "user",
  "issue",
  "file",
  "invoice",
  "message",
  "event",
  "order",
  "repository",
  "ticket",
  "report",
  "photo",
  "playlist",
  "contact",
  "payment",
  "subscription",
  "document",
  "folder",
  "calendar",
  "task",
  "comment",
  "review",
  "product",
  "shipment",
  "customer",
  "forecast",
  "alert",
  "metric",
  "dashboard",
  "build",
  "deployment",
  "branch",
  "commit",
  "label",
  "channel",
  "meeting",
  "note",
  "recipe",
  "flight",
  "hotel",
  "booking",
  "article",
  "video",
  "podcast",
  "transaction",
  "budget",
  "expense",
  "lead",
  "campaign",
  "coupon",
  "inventory",
];
const DOMAINS = [
  "github",
  "slack",
  "stripe",
  "jira",
  "drive",
  "calendar",
  "shop",
  "music",
  "crm",
  "mail",
  "weather",
  "travel",
  "news",
  "finance",
  "analytics",
  "docs",
  "ci",
  "support",
  "hr",
  "maps",
];
const QUALIFIERS = [
  "by id",
  "for the current account",
  "with paging",
  "in bulk",
  "by date range",
  "with filters",
  "across workspaces",
  "as CSV",
  "with attachments",
  "in the background",
];
const PARAMS = ["query", "limit", "cursor", "owner", "name", "status", "from", "to", "format", "language", "region", "currency", "priority", "tags"];

export function syntheticTools(count: number, seed = 1): SyntheticTool[] {
  const rand = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const tools: SyntheticTool[] = [];
  for (let i = 0; i < count; i++) {
    const verb = pick(VERBS);
    const object = pick(OBJECTS);
    const other = pick(OBJECTS);
    const server = `${pick(DOMAINS)}${Math.floor(i / 500)}`;
    const name = `${verb}_${object}${i % 7 === 0 ? `_${other}` : ""}_${i}`;
    const params: SyntheticTool["inputSchema"]["properties"] = { [`${object}_id`]: { type: "string", description: `The ${object} to ${verb}` } };
    for (let p = 0; p < 1 + Math.floor(rand() * 3); p++) {
      const param = pick(PARAMS);
      params[param] = { type: param === "limit" ? "integer" : "string", description: `${param[0]!.toUpperCase()}${param.slice(1)} of the ${object}` };
    }
    tools.push({
      id: `${server}::${name}`,
      server,
      name,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${object} ${pick(QUALIFIERS)}. Works with the ${other} records of ${server}; returns the ${object} and its ${pick(OBJECTS)} links.`,
      inputSchema: { type: "object", properties: params, required: [`${object}_id`] },
    });
  }
  return tools;
}

/** Queries of one to six words from the same vocabulary, some with filler words agents use. */
export function syntheticQueries(count: number, seed = 2): string[] {
  const rand = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    const shape = i % 4;
    if (shape === 0) queries.push(pick(VERBS));
    else if (shape === 1) queries.push(`${pick(VERBS)} ${pick(OBJECTS)}`);
    else if (shape === 2) queries.push(`${pick(VERBS)} the ${pick(OBJECTS)} ${pick(QUALIFIERS)} in ${pick(DOMAINS)}`);
    else queries.push(`can you help me ${pick(VERBS)} a ${pick(OBJECTS)} and ${pick(VERBS)} its ${pick(OBJECTS)}`);
  }
  return queries;
}

export function toJsonl(tools: readonly SyntheticTool[]): string {
  return tools.map((t) => JSON.stringify(t)).join("\n") + "\n";
}
