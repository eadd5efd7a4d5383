// Regenerates every file derived from the code (JSON Schemas, docs/reference/): npm run generate
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { generatedFiles } from "../dist/docs/generated.js";

for (const { path, content } of await generatedFiles()) {
  const file = fileURLToPath(new URL(`../${path}`, import.meta.url));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  process.stdout.write(`wrote ${path}\n`);
}
