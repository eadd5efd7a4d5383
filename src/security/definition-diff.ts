/**
 * What changed between a tool's pinned definition and the one its backend
 * lists now, part by part, for the person who decides whether to approve it
 * (`metatools approve --show`): its title and description; each parameter
 * of its input and output schemas, nested ones by their path, added,
 * removed, or changed in type, requiredness, description or any other
 * keyword; and each annotation (`readOnlyHint` true → false).
 */
import type { Definition } from "./definition.js";

export type DefinitionPart = "name" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations";

export interface DefinitionChange {
  part: DefinitionPart;
  /**
   * Within a schema, a parameter's path: `options.lang` for a nested
   * property, `tags[]` for an array's items, `""` for the schema itself.
   * Within the annotations, the annotation's name. Absent for name, title
   * and description.
   */
  path?: string;
  /** What of a parameter changed: `required`, or a keyword of its schema (`type`, `description`, `enum`, …). Absent when the whole of it was added or removed. */
  aspect?: string;
  kind: "added" | "removed" | "changed";
  /** The old value: a text, a keyword's value, a whole parameter's schema (absent when added). */
  before?: unknown;
  after?: unknown;
  /** For a parameter added or removed: whether its object requires it. */
  required?: boolean;
}

type Schema = Record<string, unknown>;

/** Keywords that hold parameters, walked into rather than compared whole. */
const STRUCTURE = new Set(["properties", "required"]);
/** How deep schemas are walked; below, a parameter is compared whole. */
const MAX_DEPTH = 32;

/** The changes from `before` to `after`, in the order a person reads a definition. */
export function diffDefinitions(before: Definition, after: Definition): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  for (const part of ["name", "title", "description"] as const) {
    const [was, now] = [before[part], after[part]];
    if (was !== now) changes.push({ part, kind: was === undefined ? "added" : now === undefined ? "removed" : "changed", before: was, after: now });
  }
  changes.push(...diffSchemas("inputSchema", before.inputSchema, after.inputSchema));
  changes.push(...diffSchemas("outputSchema", before.outputSchema, after.outputSchema));
  changes.push(...diffRecords("annotations", before.annotations, after.annotations));
  return changes;
}

/** A schema's parameters compared by path; a schema added or removed whole is one change. */
export function diffSchemas(part: "inputSchema" | "outputSchema", before: unknown, after: unknown): DefinitionChange[] {
  if (!isObject(before) && !isObject(after)) return same(before, after) ? [] : [{ part, path: "", kind: "changed", before, after }];
  if (!isObject(before)) return [{ part, path: "", kind: "added", after }];
  if (!isObject(after)) return [{ part, path: "", kind: "removed", before }];
  const was = parameters(before);
  const now = parameters(after);
  const changes: DefinitionChange[] = [];
  // A parameter added or removed is one change, not one more for each parameter nested in it.
  const within = (path: string, whole: Set<string>) => [...whole].some((p) => p !== "" && (path.startsWith(`${p}.`) || path.startsWith(`${p}[]`)));
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const [path, old] of was) {
    const current = now.get(path);
    if (current) {
      if (old.required !== current.required) changes.push({ part, path, aspect: "required", kind: "changed", before: old.required, after: current.required });
      for (const key of keywords(old.own, current.own))
        if (!same(old.own[key], current.own[key])) changes.push({ part, path, aspect: key, kind: "changed", before: old.own[key], after: current.own[key] });
    } else if (!within(path, removed)) {
      removed.add(path);
      changes.push({ part, path, kind: "removed", before: old.schema, required: old.required });
    }
  }
  for (const [path, current] of now) {
    if (was.has(path) || within(path, added)) continue;
    added.add(path);
    changes.push({ part, path, kind: "added", after: current.schema, required: current.required });
  }
  return changes;
}

/** Annotations compared key by key. */
function diffRecords(part: "annotations", before: unknown, after: unknown): DefinitionChange[] {
  const was = isObject(before) ? before : {};
  const now = isObject(after) ? after : {};
  const changes: DefinitionChange[] = [];
  for (const key of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
    const [old, current] = [was[key], now[key]];
    if (same(old, current)) continue;
    changes.push({ part, path: key, kind: old === undefined ? "added" : current === undefined ? "removed" : "changed", before: old, after: current });
  }
  return changes;
}

interface Parameter {
  /** Whole, as shown when it is added or removed. */
  schema: Schema;
  /** Its keywords compared one by one: all but what is walked into as parameters of their own. */
  own: Schema;
  required: boolean;
}

/** Every parameter of a schema by path (`""` the schema itself), with whether its object requires it; in the schema's order. */
function parameters(root: Schema): Map<string, Parameter> {
  const found = new Map<string, Parameter>();
  const visit = (schema: Schema, path: string, required: boolean, depth: number) => {
    if (found.has(path)) return;
    found.set(path, { schema, own: depth < MAX_DEPTH ? own(schema) : schema, required });
    if (depth >= MAX_DEPTH) return;
    const needed = Array.isArray(schema.required) ? schema.required : [];
    if (isObject(schema.properties))
      for (const [name, child] of Object.entries(schema.properties))
        if (isObject(child)) visit(child, path ? `${path}.${name}` : name, needed.includes(name), depth + 1);
    if (isObject(schema.items)) visit(schema.items, `${path}[]`, false, depth + 1);
  };
  visit(root, "", false, 0);
  return found;
}

/** A parameter's own keywords: what is walked into (its properties, its items when they are one schema) is compared as parameters of their own. */
function own(schema: Schema): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([key, value]) => !STRUCTURE.has(key) && !(key === "items" && isObject(value))));
}

function keywords(a: Schema, b: Schema): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  // The ones a person looks at first, then the rest in their order.
  const first = ["type", "description", "title", "enum", "const", "default", "format"];
  return [...first.filter((k) => keys.includes(k)), ...keys.filter((k) => !first.includes(k))];
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Equal as JSON, whatever the order of keys. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => same(v, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Schema)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Schema)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => same((a as Schema)[k], (b as Schema)[k]));
}
