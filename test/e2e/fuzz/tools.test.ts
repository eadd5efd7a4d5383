/**
 * Property-based fuzzing (fast-check) of the three meta-tools and of every
 * built-in code tool, through a real MCP client: random JSON arguments,
 * arguments built from each tool's own parameter names with random values,
 * and random regular expressions, globs and paths. Invariant: every call
 * gets a valid MCP result (no protocol fault, no crash, `isError` never
 * set), whose text is JSON within the response budget, within 5 s; no path
 * reads anything outside the root, and a named pipe in the root never
 * hangs a call. FUZZ_RUNS sets the inputs per property (CI: 1,000;
 * `npm run fuzz`: 100,000).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, tempDir, type Session } from "../../helpers/harness.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const BUDGET = 10_000;
let session: Session;
const counts: Record<string, number> = {};
/** Written outside the root: no reply may ever contain it. */
const OUTSIDE = "OUTSIDE-THE-ROOT-7f3c";
let slowest = 0;
/** Inputs on which a property failed: the summary line says so, as the failures above it do. */
let violations = 0;

beforeAll(async () => {
  const root = tempDir();
  mkdirSync(join(root, "src"));
  writeFileSync(
    join(root, "src", "app.ts"),
    "export class App {\n  start(port: number) {\n    return listen(port);\n  }\n}\nfunction listen(p: number) { return p; }\n",
  );
  writeFileSync(join(root, "src", "util.py"), "def helper(x):\n    return x * 2\n");
  writeFileSync(
    join(root, "data.json"),
    JSON.stringify({
      items: [
        { id: 1, name: "a" },
        { id: 2, name: "b" },
      ],
    }),
  );
  writeFileSync(join(root, "README.md"), "# fixture\nsome text\n");
  writeFileSync(join(root, "aaaa.txt"), `${"a".repeat(40)}!\n`);
  writeFileSync(join(root, "big.log"), Array.from({ length: 3000 }, (_, i) => `${i} ${"ab".repeat(i % 40)}c`).join("\n"));
  execFileSync("mkfifo", [join(root, "pipe")]);
  const outside = tempDir();
  writeFileSync(join(outside, "outside.txt"), `${OUTSIDE}\n`);
  symlinkSync(outside, join(root, "escape"));
  symlinkSync(join(outside, "outside.txt"), join(root, "escape.txt"));
  session = await openSession({ metatools: { code: { root } } });
});

afterAll(async () => {
  await session?.close();
  process.stderr.write(
    `fuzz: ${Object.entries(counts)
      .map(([tool, n]) => `${tool} ${n}`)
      .join(", ")} inputs, ${violations} violation${violations === 1 ? "" : "s"}; slowest call ${Math.round(slowest)} ms\n`,
  );
});

/** Random JSON, and objects keyed by the tool's own parameters (plus strays) with random values. */
function argsFor(names: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.string(),
    fc.integer(),
    fc.constantFrom("", "*", ".*", "(", "../../etc/passwd", "$.items[0]", "code:grep", "\u0000", "a".repeat(5000)),
  );
  const keyed = fc.record(Object.fromEntries(names.map((n) => [n, value])), { requiredKeys: [] });
  const stray = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...names, "__proto__", "constructor")), value, { maxKeys: 4 });
  return fc.oneof(
    keyed,
    stray,
    fc.tuple(keyed, stray).map(([a, b]) => ({ ...b, ...a })),
  );
}

let calls = 0;

async function holds(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  // The in-memory session can answer for minutes without the event loop reaching its poll phase, where the
  // test runner's own messages are read (vitest gives up on them after 60 s): let it through now and then.
  if (++calls % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  try {
    return await checked(tool, args);
  } catch (error) {
    violations++;
    throw error;
  }
}

async function checked(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const started = performance.now();
  const result = await session.client.callTool({ name: tool, arguments: args });
  const ms = performance.now() - started;
  slowest = Math.max(slowest, ms);
  expect(ms, JSON.stringify(args).slice(0, 300)).toBeLessThan(5000);
  const content = result.content as { type: string; text: string }[];
  expect(content[0]?.type).toBe("text");
  expect(result.isError, content[0]?.text).not.toBe(true);
  expect(Buffer.byteLength(content[0]!.text)).toBeLessThanOrEqual(BUDGET);
  expect(content[0]!.text).not.toContain(OUTSIDE);
  return JSON.parse(content[0]!.text) as Record<string, any>;
}

/** Regular expressions from the whole syntax: nested quantifiers, alternation, classes, anchors, lookaround, backreferences, escapes. */
const regex: fc.Arbitrary<string> = fc.letrec<{ re: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("a", "b", ".", "\\d", "\\w", "\\s", "\\b", "[a-c]", "[^a]", "^", "$", "\\1", "\\k<n>", "\\u0041", "\\p{L}", "(", ")", "[", "\\"),
    tie("re").map((inner) => `(${inner})`),
    tie("re").map((inner) => `(?:${inner})`),
    tie("re").map((inner) => `(?=${inner})`),
    tie("re").map((inner) => `(?<!${inner})`),
  ),
  re: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("atom"),
    fc.tuple(tie("atom"), fc.constantFrom("*", "+", "?", "{2,}", "{0,1000}", "*?", "{3}", "**")).map(([a, q]) => a + q),
    fc.tuple(tie("re"), tie("re")).map(([a, b]) => a + b),
    fc.tuple(tie("re"), tie("re")).map(([a, b]) => `${a}|${b}`),
  ),
})).re;

/** Globs: stars, double stars, braces, classes and separators. */
const glob = fc
  .array(fc.constantFrom("*", "**", "?", "/", "a", "src", ".ts", "{a,b}", "{", "}", ",", "[a]", "..", "\\"), { minLength: 1, maxLength: 30 })
  .map((parts) => parts.join(""));

/** Paths: escapes, absolute paths, symlinks out of the root, odd characters, the pipe. */
const path = fc
  .array(
    fc.constantFrom(
      "..",
      ".",
      "src",
      "app.ts",
      "escape",
      "escape.txt",
      "pipe",
      "/",
      "/etc",
      "~",
      "%2e%2e",
      "\u0000",
      "é",
      " ",
      "data.json",
      "aaaa.txt",
      "outside.txt",
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join("/").replace(/\/+/g, "/"));

describe("fuzzing", () => {
  it.each([
    ["search_tools", ["query", "limit", "offset", "namespace", "tags", "mode"]],
    ["describe_tool", ["tool_id", "tool_ids", "detail_level"]],
    ["run_tool", ["tool_id", "args", "timeout_ms", "cache"]],
  ] as const)(
    "%s keeps its invariant",
    async (tool, names) => {
      await fc.assert(
        fc.asyncProperty(argsFor(names), async (args) => {
          counts[tool] = (counts[tool] ?? 0) + 1;
          await holds(tool, args);
        }),
        { numRuns: RUNS },
      );
    },
    600_000,
  );

  it("random regular expressions, globs and paths keep the invariant and stay in the root", async () => {
    const spilled = await holds("run_tool", { tool_id: "code:read_file", args: { path: "big.log" } });
    const handle = spilled.handle as string;
    expect(handle).toMatch(/^@out_/);
    const cases: [string, string, fc.Arbitrary<Record<string, unknown>>][] = [
      ["regex (code:grep)", "code:grep", fc.record({ pattern: regex, glob: fc.option(glob, { nil: undefined }) }, { requiredKeys: ["pattern"] })],
      ["regex (read_output)", "metatools:read_output", fc.record({ handle: fc.constant(handle), grep: regex })],
      ["glob (code:tree)", "code:tree", fc.record({ glob, path: fc.option(path, { nil: undefined }) }, { requiredKeys: ["glob"] })],
      ["path (code:read_file)", "code:read_file", fc.record({ path })],
      ["path (code:grep)", "code:grep", fc.record({ pattern: fc.constant("a"), path })],
    ];
    for (const [label, tool, args] of cases) {
      await fc.assert(
        fc.asyncProperty(args, async (a) => {
          counts[label] = (counts[label] ?? 0) + 1;
          const reply = await holds("run_tool", { tool_id: tool, args: a });
          if (reply.ok === false)
            expect(reply.error.code).toMatch(
              /^(invalid_regex|invalid_glob|invalid_args|outside_root|path_not_found|not_a_file|not_a_dir|special_file|secret_path|binary_file)$/,
            );
        }),
        { numRuns: RUNS },
      );
    }
  }, 1_800_000);

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
