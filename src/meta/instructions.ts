import type { MetaServices } from "./services.js";

const MAX_NAMESPACES = 30;

const CODE_LOOP = "Code: code:tree, code:symbols, code:references, code:grep, code:read_file.";

/** Server instructions: the explore → identify → focus loop, and what is connected now. */
export function instructions(services: MetaServices): string {
  const namespaces = services.registry.namespaces();
  const pending = services.backends.states().filter((s) => s.status !== "ready" && !s.fromSnapshot);
  const listed = namespaces.slice(0, MAX_NAMESPACES).map((n) => `${n.namespace} (${n.count})`);
  if (namespaces.length > MAX_NAMESPACES) listed.push(`…${namespaces.length - MAX_NAMESPACES} more`);
  const lines = [
    "Many MCP servers behind three tools; ids are namespace:tool.",
    "1. search_tools({query}): ranked tools with signatures. 2. describe_tool({tool_id}): the schema. 3. run_tool({tool_id, args}).",
    "Replies are compact: hint/warning and next give the exact call for more; obey must_follow. A large result is a handle (@out_…): its next reads slices.",
    ...(namespaces.some((n) => n.namespace === "code") ? [CODE_LOOP] : []),
    `Namespaces (tools): ${listed.join(", ") || "none yet"}.`,
  ];
  if (pending.length) lines.push(`Not ready yet: ${pending.map((s) => `${s.namespace} (${s.status})`).join(", ")}.`);
  return lines.join("\n");
}
