// Regenerates every file derived from the code (JSON Schemas, docs/reference/, the CLI's command index): npm run generate
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { generatedFiles } from "../dist/docs/generated.js";

let sourceChanged = false;
for (const { path, content } of await generatedFiles()) {
  const file = fileURLToPath(new URL(`../${path}`, import.meta.url));
  if (existsSync(file) && readFileSync(file, "utf8") === content) continue;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  process.stdout.write(`wrote ${path}\n`);
  if (path.startsWith("src/")) sourceChanged = true;
}
// A generated source file (the command index) is compiled like any other: build again so dist matches.
if (sourceChanged) execFileSync("npm", ["run", "build"], { stdio: "inherit" });
