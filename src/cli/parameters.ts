/**
 * A tool's parameters as rows of the CLI's describe table: nested fields
 * too (`entities[].name*` under `entities* object[]`), so a person sees what
 * a call must hold without reading the JSON schema; a long list of allowed
 * values goes to the meaning column, so one enum does not widen every row.
 * The schema is a backend's: the rows are bounded in depth and number.
 */
import { typeOf } from "../util/schema-words.js";

type Schema = Record<string, unknown>;

/** Nested this deep at most: past it, the field's own row says `--json` has the rest. */
const MAX_DEPTH = 4;
/** At most this many rows; a last row says how many fields are left out. */
const MAX_ROWS = 40;
/** A type wider than this is written `enum`, its values in the meaning. */
const TYPE_WIDTH = 24;
/** Allowed values listed at most. */
const MAX_VALUES = 12;

/** [name, type, meaning] rows, `*` marking a required field. */
export function parameterRows(schema: Schema | undefined): string[][] {
  const rows: string[][] = [];
  let omitted = 0;
  const walk = (node: Schema, prefix: string, depth: number) => {
    const props = node.properties && typeof node.properties === "object" ? Object.entries(node.properties as Record<string, unknown>) : [];
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const [name, value] of props) {
      const field = value && typeof value === "object" ? (value as Schema) : {};
      if (rows.length >= MAX_ROWS) {
        omitted += 1 + countFields(field, MAX_DEPTH - depth);
        continue;
      }
      const path = `${prefix}${name}${required.has(name) ? "*" : ""}`;
      const [type, values] = typeAndValues(field);
      const meaning = [values, typeof field.description === "string" ? field.description : ""].filter(Boolean).join(" ");
      const inner = objectInside(field);
      const deeper = inner && depth + 1 < MAX_DEPTH;
      rows.push([path, type, inner && !deeper && hasFields(inner.schema) ? `${meaning}${meaning ? " " : ""}(fields: --json)` : meaning]);
      if (inner && deeper) walk(inner.schema, `${prefix}${name}${inner.array ? "[]" : ""}.`, depth + 1);
    }
  };
  if (schema) walk(schema, "", 0);
  if (omitted) rows.push(["…", "", `${omitted} more field${omitted === 1 ? "" : "s"}: --json shows the whole schema`]);
  return rows;
}

/** The type, and (when listing them would widen the column) the allowed values as words. */
function typeAndValues(field: Schema): [string, string] {
  const type = typeOf(field);
  if (type.length <= TYPE_WIDTH || !Array.isArray(field.enum)) return [type, ""];
  const values = field.enum.slice(0, MAX_VALUES).map((v) => JSON.stringify(v));
  const more = field.enum.length - values.length;
  return ["enum", `one of ${values.join(", ")}${more > 0 ? `, …${more} more` : ""}.`];
}

/** The object a field holds, itself or as the items of an array. */
function objectInside(field: Schema): { schema: Schema; array: boolean } | undefined {
  if (hasFields(field)) return { schema: field, array: false };
  const items = field.items;
  if (field.type === "array" && items && typeof items === "object" && hasFields(items as Schema)) return { schema: items as Schema, array: true };
  return undefined;
}

function hasFields(schema: Schema): boolean {
  return !!schema.properties && typeof schema.properties === "object" && Object.keys(schema.properties).length > 0;
}

/** The fields under `field`, down to `depth` levels, for the count of those left out. */
function countFields(field: Schema, depth: number): number {
  const inner = objectInside(field);
  if (!inner || depth <= 0) return 0;
  return Object.values(inner.schema.properties as Record<string, unknown>).reduce<number>(
    (n, child) => n + 1 + countFields(child && typeof child === "object" ? (child as Schema) : {}, depth - 1),
    0,
  );
}
