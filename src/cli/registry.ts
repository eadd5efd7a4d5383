/**
 * Every `metatools` command, found through the generated index
 * (`command-index.ts`): its name, group, summary and usage line, and how to
 * load it. Each command is declared once, in its own file under
 * `commands/` (`export const command = defineCommand(...)`, with its
 * handler); `npm run generate` lists it here. `metatools --help` reads only
 * the index; running or asking the `--help` of one command loads that
 * command's code alone.
 */
import { COMMAND_GROUPS, commonFlags, EXIT_CODES, type Command, type CommandEntry } from "./command.js";
import { COMMAND_INDEX } from "./command-index.js";

export function commandNamed(name: string): CommandEntry | undefined {
  return COMMAND_INDEX.find((entry) => entry.name === name);
}

export async function loadCommand(entry: CommandEntry): Promise<Command> {
  return (await entry.load()).command;
}

/** Every command's declaration, in the order help lists them (the generated reference reads them all). */
export async function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_INDEX.map(loadCommand));
}

/** `metatools --help`: the commands under their groups, each with its usage line. */
export function usage(): string {
  const groups = Object.entries(COMMAND_GROUPS).flatMap(([group, heading]) => {
    const entries = COMMAND_INDEX.filter((entry) => entry.group === group);
    return entries.length
      ? ["", `${heading}:`, ...entries.map((c) => `  ${c.name.padEnd(9)} ${c.summary}\n  ${" ".repeat(9)} metatools ${c.name} ${c.synopsis}`)]
      : [];
  });
  return [
    "usage: metatools <command> [options]",
    ...groups,
    "",
    commonFlags(),
    EXIT_CODES,
    "Colour only on a terminal (NO_COLOR turns it off, FORCE_COLOR on). Logs go to stderr; stdout carries the result, or the protocol under serve.",
  ].join("\n");
}
