/**
 * Input validation with ajv, before any backend is called. Validators are
 * compiled once per schema object and cached; draft-07 and 2020-12 schemas
 * both appear in real servers, so the draft is picked from `$schema`.
 */
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema } from "../model/tool.js";
import { lazyRequire } from "../util/lazy-require.js";

// Read at the first compile: a command that validates nothing never loads them (util/lazy-require.ts).
const ajvModule = lazyRequire<{ Ajv: typeof Ajv }>("ajv");
const ajv2020Module = lazyRequire<{ Ajv2020: typeof Ajv2020 }>("ajv/dist/2020.js");
const addFormats = lazyRequire<(ajv: Ajv | Ajv2020) => unknown>("ajv-formats");

export type Validation = { ok: true } | { ok: false; errors: ErrorObject[] } | { ok: "unchecked"; reason: string };

export interface ValidatorOptions {
  /**
   * Treat a schema's top-level properties as the complete list when the
   * schema does not say whether others are allowed. Servers built on zod or
   * pydantic drop undeclared keys without a word, so a misspelled optional
   * argument would otherwise vanish silently. Default false.
   */
  closeTopLevel?: boolean;
}

/**
 * An ajv keeps every function it compiled, in its code scope and its schema
 * map, for its whole life: it is made for a fixed set of schemas. Tools
 * come and go (a backend renaming its tools lists new schemas every few
 * seconds), so each ajv serves this many compilations and is then replaced;
 * the old one goes once the tools it compiled for are gone (their
 * validators, in the WeakMap, are all that still reaches it).
 */
const COMPILES_PER_AJV = 500;

export class SchemaValidator {
  /** Each draft's ajv, made when a schema of that draft is first compiled (most sessions never see 2020-12). */
  private draft07: Ajv | undefined;
  private draft2020: Ajv2020 | undefined;
  private compiles = 0;
  private readonly cache = new WeakMap<JsonSchema, ValidateFunction | Error>();

  constructor(private readonly options: ValidatorOptions = {}) {}

  private ajv(modern: boolean): Ajv | Ajv2020 {
    if (++this.compiles > COMPILES_PER_AJV) {
      this.compiles = 1;
      this.draft07 = this.draft2020 = undefined;
    }
    const settings = { strict: false, allErrors: true, validateSchema: false, logger: false } as const;
    if (modern) return (this.draft2020 ??= withFormats(new (ajv2020Module().Ajv2020)(settings)));
    return (this.draft07 ??= withFormats(new (ajvModule().Ajv)(settings)));
  }

  validate(schema: JsonSchema, value: unknown): Validation {
    const validator = this.compile(schema);
    if (validator instanceof Error) return { ok: "unchecked", reason: validator.message };
    return validator(value) ? { ok: true } : { ok: false, errors: [...(validator.errors ?? [])] };
  }

  private compile(schema: JsonSchema): ValidateFunction | Error {
    const cached = this.cache.get(schema);
    if (cached) return cached;
    let compiled: ValidateFunction | Error;
    try {
      const modern = typeof schema.$schema === "string" && /2020-12|2019-09/.test(schema.$schema);
      // Strip $id: two backends may reuse one, and ajv refuses a second schema with the same $id.
      const { $id: _id, ...body } = schema;
      const ajv = this.ajv(modern);
      const compiling = this.options.closeTopLevel ? closeTopLevel(body) : body;
      compiled = ajv.compile(compiling);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    }
    this.cache.set(schema, compiled);
    return compiled;
  }
}

function withFormats<T extends Ajv | Ajv2020>(ajv: T): T {
  addFormats()(ajv);
  return ajv;
}

/**
 * The schema with `additionalProperties: false` at the root when it lists
 * properties and says nothing about others. Left alone when it allows
 * extras in any way, or combines subschemas (where closing one branch
 * would reject the properties of another).
 */
function closeTopLevel(schema: JsonSchema): JsonSchema {
  const open = ["additionalProperties", "patternProperties", "unevaluatedProperties", "allOf", "anyOf", "oneOf", "$ref", "if"].some((k) => k in schema);
  const props = schema.properties;
  if (open || !props || typeof props !== "object" || !Object.keys(props).length) return schema;
  return { ...schema, additionalProperties: false };
}
