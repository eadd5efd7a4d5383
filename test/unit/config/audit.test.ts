/**
 * `metatools.audit` as the loader resolves it: where records go by default
 * (a file per config in the state folder, or Redis when the store is), a
 * file relative to the config, and what is refused.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config/load.js";
import { ConfigError } from "../../../src/util/errors.js";

const dir = join("/", "srv", "team");
const file = join(dir, "metatools.json");
const resolve = (metatools: Record<string, unknown>, env: NodeJS.ProcessEnv = { XDG_STATE_HOME: "/var/state" }) =>
  parseConfig({ mcpServers: {}, metatools: { code: { enabled: false }, ...metatools } }, { file, env, cwd: dir }).audit;

describe("metatools.audit", () => {
  it.each([
    [
      "nothing: a file per config under $XDG_STATE_HOME",
      {},
      { to: "file", file: expect.stringMatching(/^\/var\/state\/metatools\/audit\/[0-9a-f]{16}\.jsonl$/) },
    ],
    ["a file, relative to the config", { audit: { file: "logs/audit.jsonl", keep: 2 } }, { to: "file", file: join(dir, "logs/audit.jsonl"), keep: 2 }],
    ["a Redis store: records go there", { store: { url: "redis://cache:6379" } }, { to: "store", maxRecords: 100_000 }],
    ["a Redis store, and to: file", { store: { url: "rediss://cache:6380" }, audit: { to: "file" } }, { to: "file" }],
    ["a SQLite store: the file still", { store: { url: "sqlite://state.db" } }, { to: "file" }],
  ])("%s", (_, metatools, expected) => {
    expect(resolve(metatools)).toMatchObject(expected);
  });

  it("defaults maxBytes to 10 MiB and keep to 5; with no XDG_STATE_HOME, the file is under ~/.local/state", () => {
    expect(resolve({}, { HOME: "/home/ada" })).toEqual({
      to: "file",
      file: expect.stringMatching(/^\/home\/ada\/\.local\/state\/metatools\/audit\/[0-9a-f]{16}\.jsonl$/),
      maxBytes: 10 << 20,
      keep: 5,
    });
  });

  it("one file per config file: two configs, two files", () => {
    const other = parseConfig({ mcpServers: {}, metatools: { code: { enabled: false } } }, { file: join(dir, "other.json"), env: {}, cwd: dir }).audit;
    expect(other).toMatchObject({ to: "file" });
    expect(resolve({}, {})).not.toEqual(other);
  });

  it("enabled: false turns it off", () => {
    expect(resolve({ audit: { enabled: false } })).toBeUndefined();
  });

  it.each([
    ["to: store on the memory store", { audit: { to: "store" } }, /metatools\.audit\.to.*must be Redis/],
    ["a keep past 100", { audit: { keep: 101 } }, /audit\.keep/],
    ["a maxBytes under 4 KiB", { audit: { maxBytes: 100 } }, /audit\.maxBytes/],
    ["an unknown field", { audit: { path: "x" } }, /audit/],
  ])("refuses %s", (_, metatools, message) => {
    expect(() => resolve(metatools)).toThrow(ConfigError);
    expect(() => resolve(metatools)).toThrow(message);
  });
});
