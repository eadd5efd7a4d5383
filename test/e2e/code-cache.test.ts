/**
 * The command starts from V8's code cache (src/cli/code-cache.ts): written
 * after a run that had none, taken by the next run unchanged, and never
 * taken from a file someone else could have written, or one V8 refuses.
 */
import { isAscii } from "node:buffer";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { asciiOnly } from "../../scripts/bundle-options.mjs";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

function setUp() {
  const dir = tempDir();
  writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
  const env = { XDG_CACHE_HOME: join(dir, "cache") };
  const codeDir = join(dir, "cache", "metatools", "code");
  const search = async (extra: NodeJS.ProcessEnv = {}) => {
    const ran = await runCli(["search", "add two numbers", "--json"], { cwd: dir, env: { ...env, ...extra } });
    expect(ran.code, ran.stderr).toBe(0);
    return JSON.parse(ran.stdout) as { hits: { id: string }[] };
  };
  const cacheFile = () => {
    const files = existsSync(codeDir) ? readdirSync(codeDir).filter((name) => name.endsWith(".v8")) : [];
    expect(files).toHaveLength(1);
    return join(codeDir, files[0]!);
  };
  return { search, cacheFile, codeDir };
}

describe("the code cache", () => {
  it("is written by a run without one, readable by its owner only, and taken by the next run as it is", async () => {
    const { search, cacheFile } = setUp();
    const first = await search();
    const file = cacheFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, "..")).mode & 0o077).toBe(0);
    const written = readFileSync(file);
    expect(written.length).toBeGreaterThan(100_000);
    const second = await search();
    expect(second.hits.map((h) => h.id)).toEqual(first.hits.map((h) => h.id));
    expect(readFileSync(file).equals(written)).toBe(true);
  }, 60_000);

  it("is not taken from a file others may write, nor when V8 refuses it: the run compiles, and writes its own", async () => {
    const { search, cacheFile } = setUp();
    const first = await search();
    const file = cacheFile();
    chmodSync(file, 0o666);
    expect((await search()).hits).toEqual(first.hits);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const good = readFileSync(file);
    writeFileSync(file, Buffer.alloc(good.length, 7), { mode: 0o600 });
    expect((await search()).hits).toEqual(first.hits);
    expect(readFileSync(file).every((byte) => byte === 7)).toBe(false);
  }, 60_000);

  it("compiles a bundle of ASCII text (read as one-byte text at each start), its comments' other characters escaped", () => {
    const bundle = readFileSync(fileURLToPath(new URL("../../dist/bundle/main.cjs", import.meta.url)));
    expect(isAscii(bundle)).toBe(true);
    expect(asciiOnly("a \u2014 b \u{1F600}")).toBe("a \\u2014 b \\ud83d\\ude00");
    expect(new Function(`return "${asciiOnly("\u2014\u{1F600}")}"`)()).toBe("\u2014\u{1F600}");
  });

  it("is off with METATOOLS_CODE_CACHE=0", async () => {
    const { search, codeDir } = setUp();
    await search({ METATOOLS_CODE_CACHE: "0" });
    expect(existsSync(codeDir)).toBe(false);
  }, 60_000);
});
