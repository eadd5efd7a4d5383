/**
 * The JSON Schema validator the SDK's client is given. The SDK's own
 * compiles every output schema a backend lists, at every listing, into one
 * ajv that keeps all of them for the connection's life: a backend that
 * renames its tools every few seconds grew the heap without end (the
 * soak). metatools validates outputs itself (exec/output-check.ts) and
 * calls tools with raw requests, so here a schema is compiled only when
 * the SDK actually validates with it (an elicitation answer), through the
 * executor's validator, which lets go of a schema when the schema goes.
 */
import type { jsonSchemaValidator, JsonSchemaValidator } from "@modelcontextprotocol/client";
import type { JsonSchema } from "../model/tool.js";
import { SchemaValidator } from "../exec/validator.js";

export function sdkSchemaValidator(validator = new SchemaValidator()): jsonSchemaValidator {
  return {
    getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
      return (input) => {
        const checked = validator.validate(schema as JsonSchema, input);
        if (checked.ok === false) {
          const errorMessage = checked.errors.map((e) => `${e.instancePath || "the value"} ${e.message ?? "is not valid"}`).join("; ");
          return { valid: false, data: undefined, errorMessage };
        }
        // A schema ajv cannot compile checks nothing, as the SDK's own would have thrown: let the value through.
        return { valid: true, data: input as T, errorMessage: undefined };
      };
    },
  };
}
