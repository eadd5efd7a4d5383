/**
 * Shell transcripts written in the docs, run for real and compared with
 * what they show. A transcript is a fenced `text` block right after a
 * `<!-- transcript: NAME -->` comment: `$ command` lines, each followed by
 * what it prints (stdout and stderr as a terminal interleaves them). A line
 * of `…` alone stands for any number of lines; a command ending in `&` runs
 * in the background and shows nothing.
 */
export interface Step {
  command: string;
  /** The lines the doc shows after the command. */
  shown: string[];
}

/** The steps of the transcript named `name` in `markdown`. */
export function transcriptSteps(markdown: string, name: string): Step[] {
  const start = markdown.indexOf(`<!-- transcript: ${name} `);
  if (start < 0) throw new Error(`no transcript named ${name}`);
  const fence = markdown.indexOf("```text\n", start);
  const end = markdown.indexOf("\n```", fence + 8);
  const lines = markdown.slice(fence + 8, end).split("\n");
  const steps: Step[] = [];
  for (const line of lines) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), shown: [] });
    else if (steps.length) steps.at(-1)!.shown.push(line);
  }
  for (const step of steps) while (step.shown.length && step.shown.at(-1) === "") step.shown.pop();
  return steps;
}

/** Where `shown` first departs from `printed` (the lines `…` elides), or undefined when it matches. */
export function mismatch(shown: string[], printed: string[]): string | undefined {
  const actual = trimEnd(printed.map((l) => l.trimEnd()));
  const segments: string[][] = [[]];
  for (const line of shown.map((l) => l.trimEnd())) {
    if (line === "…") segments.push([]);
    else segments.at(-1)!.push(line);
  }
  const first = segments[0]!;
  const last = segments.at(-1)!;
  if (segments.length === 1) return actual.length === first.length && startsAt(actual, first, 0) ? undefined : "the printed output is not the one shown";
  if (!startsAt(actual, first, 0)) return `the printed output does not begin with:\n${first.join("\n")}`;
  let at = first.length;
  for (const segment of segments.slice(1, -1)) {
    const found = find(actual, segment, at);
    if (found < 0) return `cannot find, after printed line ${at}:\n${segment.join("\n")}`;
    at = found + segment.length;
  }
  const end = actual.length - last.length;
  return end >= at && startsAt(actual, last, end) ? undefined : `the printed output does not end with:\n${last.join("\n")}`;
}

const trimEnd = (lines: string[]): string[] => {
  const copy = [...lines];
  while (copy.length && copy.at(-1) === "") copy.pop();
  return copy;
};

function startsAt(lines: string[], segment: string[], at: number): boolean {
  return at >= 0 && segment.every((line, i) => lines[at + i] === line);
}

function find(lines: string[], segment: string[], from: number): number {
  for (let at = from; at + segment.length <= lines.length; at++) if (startsAt(lines, segment, at)) return at;
  return -1;
}
