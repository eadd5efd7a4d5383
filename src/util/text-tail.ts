/**
 * Quoting the end of a long text (a backend's stderr tail, an error that
 * quotes one) in a bounded number of characters without cutting a line
 * or a word in half.
 */

/**
 * The end of `text` (a stderr tail, or an error quoting one) in at most
 * `max` characters, cut between lines: its last whole lines, after
 * "… (N earlier lines)" when some are left out. The end is what explains a
 * failure (npm prints its 404 last; a stack trace ends with the cause), and
 * a cut inside a line leaves a fragment nobody can read. A last line too
 * long by itself keeps its head, cut after a word.
 */
export function lastLines(text: string, max: number): string {
  const lines = text.trimEnd().split("\n");
  if (lines.join("\n").length <= max) return lines.join("\n");
  let kept = 0;
  let size = 0;
  // One more line fits while it and the marker for the lines before it stay within max.
  while (kept < lines.length - 1) {
    const next = size + (kept ? 1 : 0) + lines[lines.length - 1 - kept]!.length;
    if (next + earlierLines(lines.slice(0, lines.length - 1 - kept)).length + 1 > max) break;
    size = next;
    kept++;
  }
  if (kept === 0) {
    const marker = lines.length > 1 ? `${earlierLines(lines.slice(0, -1))}\n` : "";
    return `${marker}${wordCut(lines.at(-1)!, max - marker.length)}`;
  }
  return [earlierLines(lines.slice(0, lines.length - kept)), ...lines.slice(-kept)].join("\n");
}

/** "… (N earlier lines)" for the lines left out, counting those a quoted tail already left out. */
function earlierLines(dropped: readonly string[]): string {
  const count = dropped.reduce((n, line) => n + 1 + Number(/… \((\d+) earlier lines?\)$/.exec(line)?.[1] ?? 0), 0);
  return `… (${count} earlier line${count === 1 ? "" : "s"})`;
}

/**
 * `line` in at most `max` characters: its head (where a message says what
 * went wrong), cut after a word when one ends in the second half, then "…".
 * A line the stderr tail already cut ends by saying how long it was
 * (StderrTail in transports.ts): that ending is kept in place of the "…".
 */
function wordCut(line: string, max: number): string {
  if (line.length <= max) return line;
  const ending = /… \(a line of \d+ characters, cut\)$/.exec(line)?.[0] ?? "…";
  const body = ending === "…" ? line : line.slice(0, -ending.length);
  const room = Math.max(0, max - ending.length);
  if (body.length <= room) return `${body}${ending}`;
  // The character just past the room shows whether the cut already falls between words.
  const space = body.slice(0, room + 1).lastIndexOf(" ");
  const head = space >= room / 2 ? body.slice(0, space) : body.slice(0, room);
  return `${head.trimEnd()}${ending}`;
}
