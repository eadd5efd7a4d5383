/**
 * A command is declared once, in its file under src/cli/commands/: every
 * flag declared is parsed, named in its usage line and --help with its
 * help, and listed in the generated docs/reference/cli.md; a flag added to
 * a declaration shows up in all of them with no other edit, and a command
 * file added is listed by the generated index with no other edit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { commandHelp, commonFlags, synopsis, type Command } from "../../../src/cli/command.js";
import { COMMON, flag, flagWords, parseFlags, UsageError, type Flag } from "../../../src/cli/flags.js";
import { command as learnCommand } from "../../../src/cli/commands/learn.js";
import { command as runCommand } from "../../../src/cli/commands/run.js";
import { command as searchCommand } from "../../../src/cli/commands/search.js";
import { commandNamed, loadCommand, loadCommands, usage } from "../../../src/cli/registry.js";
import { cliReference } from "../../../src/docs/cli-reference.js";
import { commandIndexSource, declaredCommands } from "../../../src/docs/command-index.js";
import { tempDir } from "../../helpers/harness.js";

const ROOT = join(import.meta.dirname, "../../..");
const named = (text: string): string[] => [...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!);
/** Text as one line of single spaces: help wraps lines. */
const flat = (text: string): string => text.replace(/\s+/g, " ");

/** A command's section of a reference page: from its heading to the next. */
function section(markdown: string, name: string): string {
  const start = markdown.indexOf(`## \`metatools ${name}\``);
  expect(start, `a section for ${name}`).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** A value the flag accepts. */
const sample = (spec: Flag): string[] => (spec.type === "boolean" ? [] : [spec.type === "int" ? String(spec.min) : "x"]);

const checkedIn = readFileSync(join(ROOT, "docs/reference/cli.md"), "utf8");
const commands = await loadCommands();
const reference = cliReference(commands);

describe.each(commands.map((c) => [c.name, c] as const))("metatools %s", (name, command) => {
  const own = Object.entries(command.flags);

  it("names every flag it declares, with its help, in its usage, its --help and the reference", () => {
    const help = commandHelp(command);
    for (const [flagName, spec] of own) {
      const words = flagWords(flagName, spec);
      expect(synopsis(command), `--${flagName} in the usage of ${name}`).toContain(words);
      expect(help, `--${flagName} in metatools ${name} --help`).toMatch(new RegExp(`^  ${words.replace(/[|.]/g, "\\$&")}( |$)`, "m"));
      expect(flat(help), `the help of --${flagName} in metatools ${name} --help`).toContain(spec.help);
      expect(section(reference, name), `--${flagName} in the reference`).toContain(`- \`${words}\`: ${spec.help}`);
      expect(section(checkedIn, name), `--${flagName} in docs/reference/cli.md (npm run generate)`).toContain(`- \`${words}\`: ${spec.help}`);
    }
    for (const [flagName, spec] of Object.entries(COMMON)) {
      expect(help, `--${flagName} in metatools ${name} --help`).toContain(flagWords(flagName, spec));
      expect(commonFlags()).toContain(`${flagWords(flagName, spec)} (${spec.help})`);
    }
  });

  it("parses every flag it declares, and names no other in its help", () => {
    for (const flagName of named(commandHelp(command)))
      expect([...own.map(([n]) => n), ...Object.keys(COMMON)], `--${flagName} named by ${name} --help`).toContain(flagName);
    for (const [flagName, spec] of own) {
      const { values } = parseFlags([`--${flagName}`, ...sample(spec)], command.flags);
      const expected = spec.type === "boolean" ? true : spec.type === "int" ? spec.min : spec.type === "repeatable" ? ["x"] : "x";
      expect(values[flagName], `--${flagName}`).toEqual(expected);
    }
    expect(() => parseFlags(["--no-such-flag"], command.flags)).toThrow(UsageError);
  });

  it("parses with its own declaration, in the file the index loads", async () => {
    const entry = commandNamed(name)!;
    expect(await loadCommand(entry)).toBe(command);
    expect(entry).toMatchObject({ summary: command.summary, synopsis: synopsis(command), group: command.group });
    const file = /commands\/([\w-]+)\.[jt]s/.exec(String(entry.load))?.[1];
    const source = readFileSync(join(ROOT, "src/cli/commands", `${file}.ts`), "utf8");
    const tables = [...source.matchAll(/parseFlags\(\s*\w+,\s*([^)]*)\)/g)].map((m) => m[1]!.trim());
    expect(tables).toEqual(["command.flags"]);
  });
});

describe("a flag added to a command's declaration", () => {
  const extra = {
    "max-bytes": flag.int("BYTES", 1, "stop reading after BYTES bytes"),
    label: flag.repeatable("TAG", "mark the run with TAG", ["red", "blue"]),
    quiet: flag.boolean("print nothing but the result"),
  };
  const grown = (name: string): Command => {
    const command = commands.find((c) => c.name === name)!;
    return { ...command, flags: { ...command.flags, ...extra } };
  };

  it.each(["run", "learn", "serve"] as const)("shows in %s's usage line, --help and reference, and parses, with no other edit", (name) => {
    const command = grown(name);
    expect(synopsis(command)).toContain("[--max-bytes BYTES]");
    expect(synopsis(command)).toContain("[--label red|blue|TAG]...");
    expect(synopsis(command)).toContain("[--quiet]");
    const help = commandHelp(command);
    expect(help).toMatch(/^ {2}--max-bytes BYTES +stop reading after BYTES bytes$/m);
    expect(flat(help)).toContain("--label red|blue|TAG mark the run with TAG (repeatable)");
    expect(help).toMatch(/^ {2}--quiet +print nothing but the result$/m);
    const reference = section(cliReference([command]), name);
    expect(reference).toContain("- `--max-bytes BYTES`: stop reading after BYTES bytes.");
    expect(reference).toContain("- `--label red|blue|TAG`: mark the run with TAG (repeatable).");
    expect(reference).toContain("- `--quiet`: print nothing but the result.");
    const { values } = parseFlags(["--max-bytes", "5", "--label", "red", "--label", "x", "--quiet"], command.flags);
    expect(values).toMatchObject({ "max-bytes": 5, label: ["red", "x"], quiet: true });
  });

  it("keeps the declared forms of the usage line, the new flag after them", () => {
    expect(synopsis(learnCommand)).toBe("--show [--json] | --export FILE|- | --import FILE | --reset");
    expect(synopsis(grown("learn"))).toBe(
      "--show [--json] | --export FILE|- | --import FILE | --reset [--max-bytes BYTES] [--label red|blue|TAG]... [--quiet]",
    );
  });
});

it("names the flags people asked after in --help and the reference", () => {
  const asked: Record<string, string[]> = {
    search: ["--refresh"],
    describe: ["--refresh"],
    index: ["--refresh"],
    run: ["--out FILE", "--args JSON", "--cache use|refresh|bypass", "--timeout MS"],
    serve: ["--profile NAME", "--http PORT", "--host HOST", "--stateless", "--allow-unauthenticated"],
    approve: ["--hash HASH", "--show ID", "--list", "--all"],
    audit: ["--last N", "--principal ID", "--tool GLOB", "--profile NAME", "--json"],
  };
  for (const [name, flags] of Object.entries(asked)) {
    for (const words of flags) {
      expect(commandHelp(commands.find((c) => c.name === name)!), `${words} in metatools ${name} --help`).toContain(`\n  ${words} `);
      expect(section(checkedIn, name), `${words} in the reference of ${name}`).toContain(`- \`${words}\`: `);
    }
  }
});

describe("parsing", () => {
  const { flags } = searchCommand;

  it.each([
    [["--limit", "many"], '--limit takes a whole number ≥ 1, got "many"'],
    [["--limit", "0"], '--limit takes a whole number ≥ 1, got "0"'],
    [["--offset=-1"], '--offset takes a whole number ≥ 0, got "-1"'],
    [["--limit=2.5"], '--limit takes a whole number ≥ 1, got "2.5"'],
    [["--refresh=yes"], "--refresh"],
    [["--nope"], "Unknown option '--nope'"],
    [["--limit"], "--limit"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseFlags(argv, flags)).toThrow(UsageError);
    expect(() => parseFlags(argv, flags)).toThrow(message);
  });

  it("gives whole numbers as numbers, repeated flags as lists, and the common flags", () => {
    const { values, positionals } = parseFlags(
      ["read a file", "--limit", "3", "--offset=0", "--namespace", "a", "--namespace", "b", "--refresh", "--config", "c.json", "--log-level", "debug"],
      flags,
    );
    expect(positionals).toEqual(["read a file"]);
    expect(values).toEqual({ limit: 3, offset: 0, namespace: ["a", "b"], refresh: true, config: "c.json", "log-level": "debug" });
  });

  it("lists the values of a closed set in its words and its error", async () => {
    const { logLevel, oneOf } = await import("../../../src/cli/flags.js");
    expect(flagWords("cache", runCommand.flags.cache)).toBe("--cache use|refresh|bypass");
    expect(() => oneOf("later", "cache", runCommand.flags.cache.values)).toThrow('--cache takes use, refresh or bypass, got "later"');
    expect(() => logLevel("loud", "warn")).toThrow('--log-level takes debug, info, warn, error or silent, got "loud"');
    expect(logLevel(undefined, "warn")).toBe("warn");
  });
});

describe("the command index", () => {
  it("lists every command under its group in metatools --help, with its usage line", () => {
    const text = usage();
    for (const c of commands) expect(text, c.name).toContain(`  ${c.name.padEnd(9)} ${c.summary}\n  ${" ".repeat(9)} metatools ${c.name} ${synopsis(c)}`);
    expect(text.indexOf("set up, check, serve:")).toBeLessThan(text.indexOf("  init "));
    expect(text.indexOf("  init ")).toBeLessThan(text.indexOf("find and run tools"));
  });

  it("takes in a command file added to the folder, with no other edit", async () => {
    const dir = tempDir();
    const command = pathToFileURL(join(ROOT, "src/cli/command.ts")).href;
    const flags = pathToFileURL(join(ROOT, "src/cli/flags.ts")).href;
    writeFileSync(
      join(dir, "greet.ts"),
      [
        `import { defineCommand } from ${JSON.stringify(command)};`,
        `import { flag } from ${JSON.stringify(flags)};`,
        `export const command = defineCommand({ name: "greet", group: "use", summary: "say hello", args: "NAME", flags: { loud: flag.boolean("shout it") }, run: async () => 0 });`,
      ].join("\n"),
    );
    writeFileSync(join(dir, "helper.ts"), "export const notACommand = 1;\n");
    const source = await commandIndexSource(pathToFileURL(`${dir}/`));
    expect(source).toContain(
      [
        '    name: "greet",',
        '    group: "use",',
        '    summary: "say hello",',
        '    synopsis: "NAME [--loud]",',
        '    load: () => import("./commands/greet.js"),',
      ].join("\n"),
    );
    expect(source).not.toContain("helper");
  });

  it("refuses two commands of one name", async () => {
    const dir = tempDir();
    const command = pathToFileURL(join(ROOT, "src/cli/command.ts")).href;
    for (const file of ["a", "b"])
      writeFileSync(
        join(dir, `${file}.ts`),
        `import { defineCommand } from ${JSON.stringify(command)};\nexport const command = defineCommand({ name: "twice", group: "use", summary: "x", flags: {}, run: async () => 0 });\n`,
      );
    await expect(declaredCommands(pathToFileURL(`${dir}/`))).rejects.toThrow('two commands are named "twice"');
  });
});
