/** A JSON Schema's type in words for a reference table: `integer (≥ 1, ≤ 50)`, `"a" or "b"`, `string[]`, `map of string`. */
export function typeOf(schema: Record<string, unknown>): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" or ");
  const variants = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (variants) return variants.map(typeOf).join(" or ");
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : String(schema.type ?? "any");
  if (type === "array") return `${typeOf((schema.items ?? {}) as Record<string, unknown>)}[]`;
  if (type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object")
    return `map of ${typeOf(schema.additionalProperties as Record<string, unknown>)}`;
  const bounds = bounded(schema);
  return bounds ? `${type} (${bounds})` : type;
}

/** "≥ 1, ≤ 50"; a maximum at the largest safe integer (what zod writes for "any int") says nothing and is left out. */
function bounded(schema: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof schema.exclusiveMinimum === "number") parts.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.minimum === "number") parts.push(`≥ ${schema.minimum}`);
  if (typeof schema.maximum === "number" && schema.maximum < Number.MAX_SAFE_INTEGER) parts.push(`≤ ${schema.maximum}`);
  return parts.join(", ");
}

/** A Markdown table cell: pipes escaped, one line. */
export function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
