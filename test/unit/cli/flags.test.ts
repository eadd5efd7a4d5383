/**
 * Every flag a command parses is in its --help and in the generated
 * docs/reference/cli.md, and every flag those name is one it parses.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMON, parseFlags } from "../../../src/cli/flags.js";
import { COMMANDS, COMMON_FLAGS, commandHelp, flagsOf } from "../../../src/cli/registry.js";
import { cliReference } from "../../../src/docs/cli-reference.js";

const ROOT = join(import.meta.dirname, "../../..");
const named = (text: string): string[] => [...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!);
const mentions = (text: string, flag: string): boolean => named(text).includes(flag);

/** A command's section of a reference page: from its heading to the next. */
function section(markdown: string, name: string): string {
  const start = markdown.indexOf(`## \`metatools ${name}\``);
  expect(start, `a section for ${name}`).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe.each(COMMANDS.map((c) => [c.name, c] as const))("metatools %s", (name, command) => {
  const own = Object.keys(flagsOf(command));
  const checkedIn = readFileSync(join(ROOT, "docs/reference/cli.md"), "utf8");

  it("names every flag it parses in its usage, its --help and the reference", () => {
    for (const flag of own) {
      expect(mentions(command.usage, flag), `--${flag} in the usage of ${name}`).toBe(true);
      expect(mentions(commandHelp(command), flag), `--${flag} in metatools ${name} --help`).toBe(true);
      expect(mentions(section(cliReference(), name), flag), `--${flag} in the reference`).toBe(true);
      expect(mentions(section(checkedIn, name), flag), `--${flag} in docs/reference/cli.md (npm run generate)`).toBe(true);
    }
    for (const flag of Object.keys(COMMON)) {
      expect(mentions(commandHelp(command), flag), `--${flag} in metatools ${name} --help`).toBe(true);
      expect(mentions(COMMON_FLAGS, flag)).toBe(true);
    }
  });

  it("parses every flag its help names, and only those", () => {
    for (const flag of named(commandHelp(command))) expect([...own, ...Object.keys(COMMON)], `--${flag} named by ${name} --help`).toContain(flag);
    for (const [flag, option] of Object.entries(flagsOf(command))) {
      const argv = option.type === "boolean" ? [`--${flag}`] : [`--${flag}`, "1"];
      expect(() => parseFlags(argv, flagsOf(command))).not.toThrow();
    }
    expect(() => parseFlags(["--no-such-flag"], flagsOf(command))).toThrow(/no-such-flag/);
  });
});

it("every command parses with its entry of the flag table, never a table of its own", () => {
  const dir = join(ROOT, "src/cli/commands");
  for (const file of readdirSync(dir)) {
    const calls = [...readFileSync(join(dir, file), "utf8").matchAll(/parseFlags\(\s*\w+,\s*([^)]*)\)/g)].map((m) => m[1]!.trim());
    for (const table of calls) expect(table, file).toMatch(/^COMMAND_FLAGS\.[\w]+$|^COMMAND_FLAGS\["[\w-]+"\]$/);
  }
});
