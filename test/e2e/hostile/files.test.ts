/**
 * Files that are traps: named pipes, a 1 GB sparse file, one huge line,
 * random bytes, hard links out of the root, and credential files. Each is
 * refused or read within bounds, the server stays up, and ordinary files
 * read as before.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, linkSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openCodeSession, type CodeSession } from "../../helpers/code.js";
import { tempDir } from "../../helpers/harness.js";

let root: string;
let session: CodeSession;

beforeAll(async () => {
  root = tempDir();
  writeFileSync(join(root, "notes.md"), "# Notes\nplain text\n");
  execFileSync("mkfifo", [join(root, "pipe.txt")]);
  execFileSync("truncate", ["-s", "1G", join(root, "sparse.txt")]);
  writeHugeLine(join(root, "oneline.txt"), 64 << 20);
  writeFileSync(join(root, "random.txt"), randomBytes(2 << 20));
  writeFileSync(join(root, "random-no-nul.dat"), Buffer.from(randomBytes(64 << 10).map((b) => b || 1)));
  writeFileSync(join(root, "latin1.txt"), Buffer.from("Caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade.\n".repeat(50), "latin1"));
  const outside = tempDir();
  writeFileSync(join(outside, "private.txt"), "outside the root\n");
  linkSync(join(outside, "private.txt"), join(root, "linked.txt"));
  writeFileSync(join(root, ".env"), "TOKEN=abc\n");
  linkSync(join(root, ".env"), join(root, "env-copy.txt"));
  writeFileSync(join(root, ".gitignore"), "node_modules/\n");
  mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
  linkSync(join(outside, "private.txt"), join(root, "node_modules", "pkg", "index.js"));
  session = await openCodeSession(root);
}, 60_000);
afterAll(() => session?.close());

function writeHugeLine(path: string, bytes: number): void {
  const fd = openSync(path, "w");
  const block = Buffer.alloc(1 << 20, "a");
  for (let written = 0; written < bytes; written += block.length) writeSync(fd, block);
  closeSync(fd);
}

describe("files that are traps", () => {
  it("a named pipe is never opened: read_file refuses it, grep skips it, five times over, and other reads still work", async () => {
    for (let i = 0; i < 5; i++) {
      const read = await session.code("read_file", { path: "pipe.txt" });
      expect(read).toMatchObject({ ok: false, error: { code: "special_file" } });
      expect(read.error.message).toMatch(/named pipe/);
      const grep = await session.code("grep", { pattern: "plain" });
      expect(grep.structured.files).toEqual([{ file: "notes.md", lines: ["2: plain text"] }]);
      expect(grep.structured.note).toMatch(/1 pipes, sockets or devices/);
    }
    expect((await session.code("read_file", { path: "notes.md" })).structured.content).toBe("# Notes\nplain text");
  });

  it("a 1 GB sparse file is refused as binary, not read into a string", async () => {
    const reply = await session.code("read_file", { path: "sparse.txt" });
    expect(reply).toMatchObject({ ok: false, error: { code: "binary_file" } });
  });

  it("a 64 MB file of one line is streamed: its head is cut and the line's length given", async () => {
    const reply = await session.code("read_file", { path: "oneline.txt" });
    expect(reply.ok).toBe(true);
    expect(reply.structured.total_lines).toBe(1);
    expect(reply.structured.content).toMatch(/^a{2000}… \[line is 67108864 bytes\]$/);
  });

  it("binary content is told by content, not by name: random bytes, with or without NULs", async () => {
    expect(await session.code("read_file", { path: "random.txt" })).toMatchObject({ ok: false, error: { code: "binary_file" } });
    expect(await session.code("read_file", { path: "random-no-nul.dat" })).toMatchObject({ ok: false, error: { code: "binary_file" } });
    // Legacy 8-bit text is still text.
    expect((await session.code("read_file", { path: "latin1.txt", start_line: 1, end_line: 1 })).ok).toBe(true);
  });

  it("a hard link under node_modules (pnpm's store) is read", async () => {
    expect((await session.code("read_file", { path: "node_modules/pkg/index.js" })).structured.content).toBe("outside the root");
  });

  it("a hard link is refused, whether it leads out of the root or to .env", async () => {
    for (const path of ["linked.txt", "env-copy.txt"]) {
      const reply = await session.code("read_file", { path });
      expect(reply).toMatchObject({ ok: false, error: { code: "hard_link" } });
    }
    const grep = await session.code("grep", { pattern: "outside the root|TOKEN" });
    expect(grep.structured.files).toEqual([]);
    expect(grep.structured.note).toMatch(/2 hard-linked files/);
  });

  it("the server answers normally afterwards", async () => {
    const tree = await session.code("tree", {});
    expect(tree.structured.entries).toContain("notes.md");
    expect(tree.structured.entries).not.toContain("pipe.txt");
  });
});

describe("secret files", () => {
  const secrets = [
    ".npmrc",
    ".git-credentials",
    ".envrc",
    ".pypirc",
    ".docker/config.json",
    "home/.docker/config.json",
    "deploy_key",
    "server_key",
    ".netrc",
    "cert.pem",
    "tls.key",
    "store.p12",
    "prod.tfstate",
    ".kube/config",
    "ops/.kube/config",
    "u/.config/gcloud/credentials.db",
  ];
  let dir: string;
  let plain: CodeSession;
  let allowing: CodeSession;

  beforeAll(async () => {
    dir = tempDir();
    for (const file of secrets) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      writeFileSync(join(dir, file), "secret\n");
    }
    writeFileSync(join(dir, "deploy_key.pub"), "ssh-ed25519 AAAA public\n");
    plain = await openCodeSession(dir);
    allowing = await openCodeSession(dir, { deny: ["!.npmrc", "*.md"] });
  });
  afterAll(async () => {
    await plain?.close();
    await allowing?.close();
  });

  it.each(secrets)("%s is refused by default", async (path) => {
    expect(await plain.code("read_file", { path })).toMatchObject({ ok: false, error: { code: "secret_path" } });
  });

  it("public keys stay readable, and code.deny adds patterns or re-allows a default with !", async () => {
    expect((await plain.code("read_file", { path: "deploy_key.pub" })).ok).toBe(true);
    expect((await allowing.code("read_file", { path: ".npmrc" })).structured.content).toBe("secret");
    expect(await allowing.code("read_file", { path: ".git-credentials" })).toMatchObject({ ok: false, error: { code: "secret_path" } });
  });
});
