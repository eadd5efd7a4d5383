/**
 * Property-based fuzzing (fast-check) of the three meta-tools and of every
 * built-in code tool, through a real MCP client: random JSON arguments,
 * and arguments built from each tool's own parameter names with random
 * values. Invariant: every call gets a valid MCP result (no protocol
 * fault, no crash, `isError` never set), whose text is JSON within the
 * response budget. FUZZ_RUNS sets the inputs per tool (CI: 1,000;
 * `npm run fuzz`: 100,000).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, tempDir, type Session } from "./helpers/harness.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const BUDGET = 10_000;
let session: Session;
const counts: Record<string, number> = {};

beforeAll(async () => {
  const root = tempDir();
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "app.ts"), "export class App {\n  start(port: number) {\n    return listen(port);\n  }\n}\nfunction listen(p: number) { return p; }\n");
  writeFileSync(join(root, "src", "util.py"), "def helper(x):\n    return x * 2\n");
  writeFileSync(join(root, "data.json"), JSON.stringify({ items: [{ id: 1, name: "a" }, { id: 2, name: "b" }] }));
  writeFileSync(join(root, "README.md"), "# fixture\nsome text\n");
  session = await openSession({ metatools: { code: { root } } });
});

afterAll(async () => {
  await session?.close();
  process.stderr.write(`fuzz: ${Object.entries(counts).map(([tool, n]) => `${tool} ${n}`).join(", ")} inputs, 0 violations\n`);
});

/** Random JSON, and objects keyed by the tool's own parameters (plus strays) with random values. */
function argsFor(names: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string(), fc.integer(), fc.constantFrom("", "*", ".*", "(", "../../etc/passwd", "$.items[0]", "code:grep", "\u0000", "a".repeat(5000)));
  const keyed = fc.record(Object.fromEntries(names.map((n) => [n, value])), { requiredKeys: [] });
  const stray = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...names, "__proto__", "constructor")), value, { maxKeys: 4 });
  return fc.oneof(keyed, stray, fc.tuple(keyed, stray).map(([a, b]) => ({ ...b, ...a })));
}

async function holds(tool: string, args: Record<string, unknown>): Promise<void> {
  const result = await session.client.callTool({ name: tool, arguments: args });
  const content = result.content as { type: string; text: string }[];
  expect(content[0]?.type).toBe("text");
  expect(result.isError, content[0]?.text).not.toBe(true);
  expect(Buffer.byteLength(content[0]!.text)).toBeLessThanOrEqual(BUDGET);
  JSON.parse(content[0]!.text);
}

describe("fuzzing", () => {
  it.each([
    ["search_tools", ["query", "limit", "offset", "namespace", "tags", "mode"]],
    ["describe_tool", ["tool_id", "tool_ids", "detail_level"]],
    ["run_tool", ["tool_id", "args", "timeout_ms", "cache"]],
  ] as const)("%s keeps its invariant", async (tool, names) => {
    await fc.assert(
      fc.asyncProperty(argsFor(names), async (args) => {
        counts[tool] = (counts[tool] ?? 0) + 1;
        await holds(tool, args);
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it("every code tool keeps its invariant", async () => {
    const tools = [...session.app.registry.records()].filter((r) => r.namespace === "code");
    expect(tools.length).toBeGreaterThanOrEqual(5);
    for (const record of tools) {
      const names = Object.keys((record.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
      await fc.assert(
        fc.asyncProperty(argsFor(names), async (args) => {
          counts[record.id] = (counts[record.id] ?? 0) + 1;
          await holds("run_tool", { tool_id: record.id, args });
        }),
        { numRuns: RUNS },
      );
    }
  }, 1_800_000);
});
