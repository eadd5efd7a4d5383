// Regenerates the shipped JSON Schemas from the zod definitions: npm run schemas
import { writeFileSync } from "node:fs";
import { shippedSchemas } from "../dist/schemas.js";

for (const { path, schema } of shippedSchemas()) {
  writeFileSync(new URL(`../${path}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
  process.stdout.write(`wrote ${path}\n`);
}
