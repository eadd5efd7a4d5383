/**
 * The JSON Schemas shipped in the repository, generated from the zod
 * definitions so they cannot drift (a test compares them with the files).
 * Editors use them to check `metatools.json` and catalog files as you type.
 */
import { z } from "zod";
import { catalogFileSchema } from "./catalog/schema.js";
import { configFileSchema } from "./config/schema.js";

export function shippedSchemas(): { path: string; schema: Record<string, unknown> }[] {
  return [
    { path: "schema/config.schema.json", schema: generate(configFileSchema, "metatools configuration (metatools.json)") },
    { path: "catalog/catalog.schema.json", schema: generate(catalogFileSchema, "metatools catalog file") },
  ];
}

function generate(schema: z.ZodType, title: string): Record<string, unknown> {
  return { title, ...(z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<string, unknown>) };
}
