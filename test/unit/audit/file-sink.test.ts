/**
 * The audit file on a real file system: rotation by size keeps `keep` older
 * files and the newest records, whole and in order; a link, a FIFO or a hard
 * link planted at its name is refused, never written through; and several
 * writers on one file (as a server and `metatools run` on one config) lose
 * no record and split none, across rotations.
 */
import { spawnSync } from "node:child_process";
import { existsSync, linkSync, lstatSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditFileSink } from "../../../src/audit/file-sink.js";
import { AuditLog } from "../../../src/audit/log.js";
import { AUDIT_VERSION, parseAuditLine, type AuditRecord } from "../../../src/audit/record.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** A valid record whose tool names the writer and its sequence number, so order and loss can be read back. */
function record(writer: string, n: number): AuditRecord {
  return {
    v: AUDIT_VERSION,
    time: new Date(1_700_000_000_000 + n).toISOString(),
    principal: "local",
    profile: "default",
    tool: `${writer}:tool_${n}`,
    args: `sha256:${"0".repeat(64)}`,
    approval: "not_needed",
    status: "ok",
    duration_ms: n,
  };
}

/** Every line of the file and its rotated ones, oldest first. */
function allLines(file: string, keep: number): string[] {
  const names = [...Array.from({ length: keep }, (_, i) => `${file}.${keep - i}`), file].filter((name) => existsSync(name));
  return names.flatMap((name) => readFileSync(name, "utf8").split("\n").filter(Boolean));
}

const sequence = (lines: string[], writer: string) =>
  lines.map((line) => parseAuditLine(line)).flatMap((entry) => (entry && "tool" in entry && entry.tool.startsWith(`${writer}:`) ? [entry.duration_ms] : []));

describe("AuditFileSink rotation", () => {
  it("keeps `keep` rotated files, each within maxBytes, holding the newest records in order", async () => {
    const file = join(tempDir(), "audit", "trail.jsonl");
    const sink = new AuditFileSink(file, { maxBytes: 2000, keep: 3 });
    const line = JSON.stringify(record("w", 0)).length + 1;
    for (let n = 0; n < 300; n++) await sink.append([JSON.stringify(record("w", n))]);

    expect(existsSync(`${file}.3`)).toBe(true);
    expect(existsSync(`${file}.4`)).toBe(false);
    for (const name of [file, `${file}.1`, `${file}.2`, `${file}.3`]) expect(statSync(name).size).toBeLessThanOrEqual(2000);
    const kept = sequence(allLines(file, 3), "w");
    // Four files of whole records: the newest ones, ending with the last, none missing between.
    expect(kept.length).toBeGreaterThan(3 * Math.floor(2000 / line));
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 300 - kept.length + i));
    const { entries } = await sink.recent(1000, () => true);
    expect(entries.map((e) => ("tool" in e ? e.duration_ms : -1))).toEqual(kept);
  });

  it("with keep 0, starts the file over and keeps no older one", async () => {
    const file = join(tempDir(), "trail.jsonl");
    const sink = new AuditFileSink(file, { maxBytes: 1000, keep: 0 });
    for (let n = 0; n < 40; n++) await sink.append([JSON.stringify(record("w", n))]);
    expect(existsSync(`${file}.1`)).toBe(false);
    const kept = sequence(allLines(file, 0), "w");
    expect(kept.at(-1)).toBe(39);
    expect(kept.length).toBeLessThan(40);
  });

  it("makes the file 0600 in a 0700 folder, and narrows a file left with looser rights", async () => {
    const dir = join(tempDir(), "state", "audit");
    const file = join(dir, "trail.jsonl");
    await new AuditFileSink(file, { maxBytes: 1 << 20, keep: 1 }).append([JSON.stringify(record("w", 1))]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const loose = join(tempDir(), "loose.jsonl");
    writeFileSync(loose, "", { mode: 0o644 });
    await new AuditFileSink(loose, { maxBytes: 1 << 20, keep: 1 }).append([JSON.stringify(record("w", 1))]);
    expect(statSync(loose).mode & 0o777).toBe(0o600);
  });
});

describe.skipIf(process.platform === "win32")("things planted at the audit file's name", () => {
  it("a symlink at the file: refused (ELOOP), the target untouched; the record is counted lost and the gap written once the link is gone", async () => {
    const dir = tempDir();
    const victim = join(dir, "victim");
    writeFileSync(victim, "theirs\n");
    const file = join(dir, "trail.jsonl");
    symlinkSync(victim, file);
    const warnings: string[] = [];
    const log = new AuditLog(new AuditFileSink(file, { maxBytes: 1 << 20, keep: 2 }), { warn: (m) => warnings.push(m) });
    log.record(record("w", 1));
    await log.flush();
    expect(readFileSync(victim, "utf8")).toBe("theirs\n");
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(log.counts).toEqual({ written: 0, dropped: 1 });
    expect(warnings.join("\n")).toMatch(/trail\.jsonl is a symbolic link: refused/);
    await expect(log.sink.recent(10, () => true)).rejects.toThrow(/symbolic link/);

    unlinkSync(file);
    log.record(record("w", 2));
    await log.close();
    const lines = readFileSync(file, "utf8").trim().split("\n").map(parseAuditLine);
    expect(lines).toEqual([{ v: 1, time: expect.any(String), dropped: 1 }, record("w", 2)]);
    expect(warnings.at(-1)).toBe(`audit: writing to ${file} again`);
  });

  it("a symlink at a rotated name is moved by the rotation, never written through", async () => {
    const dir = tempDir();
    const victim = join(dir, "victim");
    writeFileSync(victim, "theirs\n");
    const file = join(dir, "trail.jsonl");
    symlinkSync(victim, `${file}.1`);
    const sink = new AuditFileSink(file, { maxBytes: 600, keep: 3 });
    for (let n = 0; n < 20; n++) await sink.append([JSON.stringify(record("w", n))]);
    expect(readFileSync(victim, "utf8")).toBe("theirs\n");
    expect(lstatSync(`${file}.1`).isSymbolicLink()).toBe(false);
  });

  it("a FIFO at the file: refused at once, the writer never waits for a reader", async () => {
    const file = join(tempDir(), "trail.jsonl");
    expect(spawnSync("mkfifo", [file]).status).toBe(0);
    const started = Date.now();
    await expect(new AuditFileSink(file, { maxBytes: 1 << 20, keep: 1 }).append(["{}"])).rejects.toThrow(/not a regular file/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a hard link to another file of this user: refused, the other file untouched", async () => {
    const dir = tempDir();
    const other = join(dir, "authorized_keys");
    writeFileSync(other, "ssh-ed25519 AAAA\n");
    const file = join(dir, "trail.jsonl");
    linkSync(other, file);
    await expect(new AuditFileSink(file, { maxBytes: 1 << 20, keep: 1 }).append([JSON.stringify(record("w", 1))])).rejects.toThrow(/hard link/);
    expect(readFileSync(other, "utf8")).toBe("ssh-ed25519 AAAA\n");
  });
});

describe("several writers on one file", () => {
  it("lose no record and split none, each writer's records in its order, across rotations", async () => {
    const file = join(tempDir(), "trail.jsonl");
    const writers = ["a", "b", "c", "d"];
    const logs = writers.map((name) => ({ name, log: new AuditLog(new AuditFileSink(file, { maxBytes: 8000, keep: 200 }), { batch: 7 }) }));
    const perWriter = 400;
    // All writers at once, each record queued on its own turn of the event loop, as calls finish.
    await Promise.all(
      logs.map(async ({ name, log }) => {
        for (let n = 0; n < perWriter; n++) {
          log.record(record(name, n));
          if (n % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        await log.close();
      }),
    );
    expect(existsSync(`${file}.3`)).toBe(true);
    const lines = allLines(file, 200);
    expect(lines).toHaveLength(writers.length * perWriter);
    expect(lines.every((line) => parseAuditLine(line) !== undefined)).toBe(true);
    for (const name of writers) expect(sequence(lines, name)).toEqual(Array.from({ length: perWriter }, (_, i) => i));
  });
});
