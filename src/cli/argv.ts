/**
 * The command's words in the order the commands read them. Imports
 * nothing: the bin's starter (start.ts) reads them before any of the
 * command's code is loaded.
 */

/** The flags every command takes may come before its name too (`metatools --config F doctor`): they are moved after it. */
const LEADING = new Set(["--config", "--root", "--log-level"]);

export function commandFirst(argv: string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const word = argv[i]!;
    const flag = word.split("=")[0]!;
    if (!LEADING.has(flag)) break;
    const takes = word.includes("=") ? 1 : 2;
    leading.push(...argv.slice(i, i + takes));
    i += takes;
  }
  if (!leading.length) return argv;
  // Flags and no command: the usage, as for no words at all.
  if (i >= argv.length) return [];
  return [argv[i]!, ...leading, ...argv.slice(i + 1)];
}

/** Whether the words (after commandFirst) start a server, whose stdio handshake quick-start.ts may answer at once. */
export function startsServer(name: string | undefined, rest: readonly string[]): boolean {
  return name === "serve" && !rest.includes("--help") && !rest.includes("-h");
}
