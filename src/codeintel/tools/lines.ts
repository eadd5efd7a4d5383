/**
 * Matched lines as grep prints them: `12: text` for a match, `11- text` for
 * context, grouped by file so each path is written once.
 */

export interface LineHit {
  file: string;
  line: number;
  text: string;
  /** Context lines around the match, when asked for. */
  context?: { line: number; text: string }[];
}

export interface FileLines {
  file: string;
  lines: string[];
}

/** Groups hits by file (first-seen order), merging overlapping context; a gap between chunks is shown as `--`. */
export function groupLines(hits: readonly LineHit[]): FileLines[] {
  const byFile = new Map<string, Map<number, string>>();
  const withContext = hits.some((h) => h.context);
  for (const hit of hits) {
    let lines = byFile.get(hit.file);
    if (!lines) byFile.set(hit.file, (lines = new Map()));
    for (const c of hit.context ?? []) if (!lines.has(c.line)) lines.set(c.line, `${c.line}- ${c.text}`);
    lines.set(hit.line, `${hit.line}: ${hit.text}`);
  }
  return [...byFile].map(([file, lines]) => {
    const numbers = [...lines.keys()].sort((a, b) => a - b);
    const out: string[] = [];
    numbers.forEach((n, i) => {
      if (withContext && i > 0 && n > numbers[i - 1]! + 1) out.push("--");
      out.push(lines.get(n)!);
    });
    return { file, lines: out };
  });
}

/**
 * A line cut to about `width` characters around `at` (where the match is),
 * saying how long it really was: never a silent cut.
 */
export function clipLine(line: string, at: number, width: number): string {
  const text = line.replace(/\t/g, "  ").trimEnd();
  if (text.length <= width) return text;
  const from = Math.max(0, Math.min(at - Math.floor(width / 4), text.length - width));
  return `${from > 0 ? "…" : ""}${text.slice(from, from + width)}… [line is ${text.length} chars]`;
}
