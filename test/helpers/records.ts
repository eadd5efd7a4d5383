/** A tool record for tests that build the registry's shape by hand: every field filled, `fields` overriding. */
import type { ToolRecord } from "../../src/model/tool.js";

export function toolRecord(namespace: string, name: string, fields: Partial<ToolRecord> = {}): ToolRecord {
  return {
    id: `${namespace}:${name}`,
    namespace,
    name,
    summary: fields.description ?? "",
    description: "",
    inputSchema: {},
    annotations: {},
    tags: [],
    aliases: [],
    examples: [],
    externalRefs: [],
    cache: { policy: "auto" },
    runnable: true,
    ...fields,
  };
}
