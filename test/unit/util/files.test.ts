/**
 * Files metatools writes (tokens, the lock file, snapshots, index caches,
 * exports) are written so that someone who can write in the folder cannot
 * redirect them: a symlink planted at a temporary name or at the file
 * itself never receives a byte.
 */
import { lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendFileSafe, writeFileAtomic } from "../../../src/util/files.js";
import { tempDir } from "../../helpers/temp-dir.js";

describe("writeFileAtomic", () => {
  it("never writes through a symlink planted at the temporary name it used to use", () => {
    const dir = tempDir();
    const victim = join(dir, "victim");
    writeFileSync(victim, "");
    const file = join(dir, "tokens.json");
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    writeFileAtomic(file, "secret", 0o600);
    expect(readFileSync(victim, "utf8")).toBe("");
    expect(readFileSync(file, "utf8")).toBe("secret");
  });

  it("replaces a symlink planted at the file itself instead of writing through it", () => {
    const dir = tempDir();
    const victim = join(dir, "victim");
    writeFileSync(victim, "theirs");
    const file = join(dir, "lock.json");
    symlinkSync(victim, file);
    writeFileAtomic(file, "ours");
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("ours");
    expect(readFileSync(victim, "utf8")).toBe("theirs");
  });

  it("gives a secret its mode before any byte, whatever the umask, and leaves no temporary file", () => {
    const dir = tempDir();
    const file = join(dir, "secret.json");
    writeFileSync(file, "old", { mode: 0o644 });
    const previous = process.umask(0o000);
    try {
      writeFileAtomic(file, new Uint8Array([1, 2, 3]), 0o600);
    } finally {
      process.umask(previous);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect([...readFileSync(file)]).toEqual([1, 2, 3]);
    expect(readdirSync(dir)).toEqual(["secret.json"]);
  });

  it("fails with the system's error and leaves nothing behind when the folder is missing", () => {
    const dir = tempDir();
    expect(() => writeFileAtomic(join(dir, "missing", "f.json"), "x")).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("appendFileSafe", () => {
  it("creates and appends, and refuses a symlink at the file (ELOOP) without writing a byte through it", () => {
    const dir = tempDir();
    const file = join(dir, "cache.vec");
    appendFileSafe(file, Buffer.from("ab"));
    appendFileSafe(file, Buffer.from("cd"));
    expect(readFileSync(file, "utf8")).toBe("abcd");
    const victim = join(dir, "victim");
    writeFileSync(victim, "");
    const link = join(dir, "planted.vec");
    symlinkSync(victim, link);
    expect(() => appendFileSafe(link, Buffer.from("x"))).toThrow(/ELOOP/);
    expect(readFileSync(victim, "utf8")).toBe("");
  });
});
