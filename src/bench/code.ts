/**
 * Benchmarks of the code tools over a generated source tree: `symbols`
 * pattern search and `grep`, cold (first call of a fresh app: every file read and parsed)
 * and warm (outlines cached by modification time, files in the OS cache).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMetatools } from "../app.js";
import { parseConfig } from "../config/load.js";
import { createMetaDispatcher } from "../meta/index.js";

export interface CodeBenchRow {
  call: string;
  files: number;
  coldMs: number;
  warmMs: number;
  total: number;
}

const TEMPLATES: [ext: string, body: (i: number) => string][] = [
  [
    ".ts",
    (i) =>
      `import { helper${i % 50} } from "./helpers";\n\nexport interface Options${i} {\n  name: string;\n  retries: number;\n}\n\nexport class Service${i} {\n  private cache = new Map<string, number>();\n  constructor(private readonly options: Options${i}) {}\n\n  async fetchRecord(id: string): Promise<number> {\n    // TODO: batch these lookups\n    const hit = this.cache.get(id);\n    if (hit !== undefined) return hit;\n    const value = helper${i % 50}(id.length + ${i});\n    this.cache.set(id, value);\n    return value;\n  }\n\n  reset(): void {\n    this.cache.clear();\n  }\n}\n\nexport function createService${i}(name: string): Service${i} {\n  return new Service${i}({ name, retries: 3 });\n}\n`,
  ],
  [
    ".py",
    (i) =>
      `MAX_ITEMS_${i} = 100\n\n\nclass Repository${i}:\n    """Stores records for module ${i}."""\n\n    def __init__(self):\n        self.items = {}\n\n    def fetch_record(self, key):\n        # TODO: add caching\n        return self.items.get(key)\n\n    def save(self, key, value):\n        self.items[key] = value\n\n\ndef build_repository_${i}():\n    return Repository${i}()\n`,
  ],
  [
    ".go",
    (i) =>
      `package pkg${i % 20}\n\nimport "fmt"\n\ntype Handler${i} struct {\n\tname string\n}\n\nfunc NewHandler${i}(name string) *Handler${i} {\n\treturn &Handler${i}{name: name}\n}\n\n// FetchRecord looks a record up. TODO: cache it.\nfunc (h *Handler${i}) FetchRecord(id int) string {\n\treturn fmt.Sprintf("%s-%d", h.name, id)\n}\n`,
  ],
];

/** Writes `count` source files into `dir`, 100 per folder, cycling through TypeScript, Python and Go. */
export function writeSourceTree(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const [ext, body] = TEMPLATES[i % TEMPLATES.length]!;
    const folder = join(dir, `module${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file${i}${ext}`), body(i));
  }
}

export async function codeBench(dir: string, files: number, warmRuns = 3): Promise<CodeBenchRow[]> {
  writeSourceTree(dir, files);
  const config = parseConfig({ metatools: { code: { root: dir }, search: { embeddingCache: false } } }, { file: join(dir, "metatools.json") });
  const calls: [string, string, Record<string, unknown>][] = [
    ['symbols pattern "fetch"', "code:symbols", { pattern: "fetch" }],
    ['symbols pattern "" kind class', "code:symbols", { pattern: "", kind: "class" }],
    ['grep "TODO"', "code:grep", { pattern: "TODO" }],
    ['grep "fetch\\w+\\("', "code:grep", { pattern: "fetch\\w+\\(" }],
  ];
  const rows: CodeBenchRow[] = [];
  for (const [label, tool_id, args] of calls) {
    // A fresh app per call, so "cold" starts with an empty parse cache.
    const app = createMetatools(config);
    await app.start();
    const run = createMetaDispatcher(app);
    try {
      const time = async () => {
        const t0 = performance.now();
        const body = await run("run_tool", { tool_id, args });
        const ms = performance.now() - t0;
        if (body.ok !== true) throw new Error(`${label}: ${JSON.stringify(body).slice(0, 300)}`);
        return { ms, total: Number((body.structured as { total?: number }).total) };
      };
      const cold = await time();
      const warm: number[] = [];
      for (let i = 0; i < warmRuns; i++) warm.push((await time()).ms);
      warm.sort((a, b) => a - b);
      rows.push({ call: label, files, coldMs: cold.ms, warmMs: warm[Math.floor(warm.length / 2)]!, total: cold.total });
    } finally {
      await app.close();
    }
  }
  return rows;
}
