import type { Metatools } from "../app.js";

const MAX_NAMESPACES = 30;

const CODE_LOOP =
  "Code (project at the working root): code:tree for layout, code:symbols for definitions (outline; pattern + kind; name_path + include_body), code:references for uses, code:grep for text, code:read_file for lines or a json_path. Each caps its output; its overflow gives by_file and ready calls: filter, then scope, then page.";

/** Server instructions: the explore → identify → focus loop, and what is connected now. */
export function instructions(app: Metatools): string {
  const namespaces = app.registry.namespaces();
  const pending = app.backends.states().filter((s) => s.status !== "ready");
  const listed = namespaces.slice(0, MAX_NAMESPACES).map((n) => `${n.namespace} (${n.count})`);
  if (namespaces.length > MAX_NAMESPACES) listed.push(`…${namespaces.length - MAX_NAMESPACES} more`);
  const lines = [
    "metatools puts many MCP servers behind three tools. Tool ids are namespace:tool.",
    "1. Explore: search_tools({query}) returns ranked one-line summaries with call signatures (param* = required) and counts per namespace. Narrow with namespace or tags before paging with offset.",
    "2. Identify: describe_tool({tool_id}) gives the input schema; detail_level \"full\" adds notes and examples. Simple tools can be called straight from the signature.",
    "3. Focus: run_tool({tool_id, args}) checks args against the schema first and says how to fix them. Read-only tools' results may come from cache (`cache: \"hit\"`, with their age); pass cache: \"refresh\" for a fresh run.",
    "Responses stay compact; when there is more, `hint`/`warning` and `next` give the exact call that gets it. A `must_follow` must be obeyed.",
    ...(namespaces.some((n) => n.namespace === "code") ? [CODE_LOOP] : []),
    "A result too large to send comes back as a handle (@out_…) with a summary; its `next` reads a slice through metatools:read_output (line range, json_path or grep). Handles expire; an expired one says to rerun the call.",
    `Namespaces (tools): ${listed.join(", ") || "none yet"}.`,
  ];
  if (pending.length) lines.push(`Not ready yet: ${pending.map((s) => `${s.namespace} (${s.status})`).join(", ")}.`);
  return lines.join("\n");
}
