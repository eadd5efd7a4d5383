/**
 * The one list of error codes (src/model/error-codes.ts) and what is
 * made from it: docs/responses.md names every code in its generated tables,
 * and every code a `recoverable(` call site writes out is in the list (the
 * types already ensure it; this guards the docs and the scan of the source).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_GROUPS } from "../../../src/model/error-codes.js";
import { errorCodeTables } from "../../../src/docs/error-codes.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CODES = new Set<string>(ERROR_CODES.map((c) => c.code));
const responses = readFileSync(join(ROOT, "docs/responses.md"), "utf8");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** Each `recoverable("code", …)` in src/, with where it is. */
function recoverableCalls(): { code: string; at: string }[] {
  return sources(join(ROOT, "src")).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/\brecoverable\(\s*"([^"]*)"/g)].map((m) => ({ code: m[1]!, at: relative(ROOT, file) })),
  );
}

describe("error codes", () => {
  it("are each declared once, in a known group, with a meaning of one line", () => {
    expect(ERROR_CODES.length).toBe(CODES.size);
    for (const entry of ERROR_CODES) {
      expect(entry.code).toMatch(/^[a-z][a-z0-9_]{0,39}$/);
      expect(Object.keys(ERROR_GROUPS)).toContain(entry.group);
      expect(entry.meaning, entry.code).not.toMatch(/\n/);
    }
    for (const group of Object.keys(ERROR_GROUPS))
      expect(
        ERROR_CODES.some((c) => c.group === group),
        group,
      ).toBe(true);
  });

  it("are all in docs/responses.md, in the tables generated from the list", () => {
    const missing = [...CODES].filter((code) => !responses.includes(`| \`${code}\` |`));
    expect(missing, "run npm run generate").toEqual([]);
    expect(responses).toContain(errorCodeTables());
    // The tables list no code the list lacks.
    const tables = responses.slice(responses.indexOf("<!-- error-codes:begin -->"), responses.indexOf("<!-- error-codes:end -->"));
    const listed = [...tables.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]!);
    expect(listed.sort()).toEqual([...CODES].sort());
  });

  it("cover every code a recoverable( call site writes out", () => {
    const calls = recoverableCalls();
    // The scan finds the call sites (meta-tools, built-in and code tools), not an empty set that would pass anything.
    expect(calls.length).toBeGreaterThan(40);
    expect(new Set(calls.map((c) => c.at.split("/")[1])).size).toBeGreaterThanOrEqual(3);
    expect(calls.filter((c) => !CODES.has(c.code))).toEqual([]);
  });
});
