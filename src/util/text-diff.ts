/**
 * The difference between two texts, as a person reads it: by lines, or by
 * words within a line. A longest-common-subsequence diff over tokens, after
 * the common start and end are set aside (a description that changed in one
 * sentence costs that sentence, not the whole text).
 */

export interface DiffPart {
  /** "=": in both; "-": only in the old text; "+": only in the new one. */
  op: "=" | "-" | "+";
  text: string;
}

/**
 * Past this many cells (tokens of the old middle × of the new), the middle
 * is shown as removed and added whole: a 10,000-word description replaced
 * by another costs no more than this (a 16 MB table).
 */
const MAX_CELLS = 4_000_000;

/** Lines, each with its line break, so joining the parts gives the text back. */
export function diffLines(before: string, after: string): DiffPart[] {
  return diffTokens(before.match(/[^\n]*\n|[^\n]+$/g) ?? [], after.match(/[^\n]*\n|[^\n]+$/g) ?? []);
}

/** Words and the spaces between them, with the small runs in common between changes folded into them (`readable`). */
export function diffWords(before: string, after: string): DiffPart[] {
  return readable(diffTokens(before.match(/\s+|\S+/g) ?? [], after.match(/\s+|\S+/g) ?? []));
}

type Group = { op: "="; text: string } | { op: "~"; removed: string; added: string };

/**
 * Folds each run in common no longer than the changes on both sides of it
 * into them (as diff-match-patch's semantic cleanup does): two sentences
 * that share only "the" and spaces read as one sentence replaced by
 * another, not as word-by-word alternation. Removals come before additions.
 */
export function readable(parts: readonly DiffPart[]): DiffPart[] {
  const groups: Group[] = [];
  for (const part of parts) {
    const last = groups[groups.length - 1];
    if (part.op === "=") groups.push({ op: "=", text: part.text });
    else if (last?.op === "~") last[part.op === "-" ? "removed" : "added"] += part.text;
    else groups.push({ op: "~", removed: part.op === "-" ? part.text : "", added: part.op === "+" ? part.text : "" });
  }
  const size = (group: Group) => (group.op === "~" ? Math.max(group.removed.length, group.added.length) : 0);
  for (let i = 1; i < groups.length - 1;) {
    const [left, same, right] = [groups[i - 1]!, groups[i]!, groups[i + 1]!];
    if (same.op === "=" && left.op === "~" && right.op === "~" && same.text.length <= size(left) && same.text.length <= size(right)) {
      groups.splice(i - 1, 3, { op: "~", removed: left.removed + same.text + right.removed, added: left.added + same.text + right.added });
      // The merged change may now outweigh the run before it.
      i = Math.max(1, i - 1);
    } else i++;
  }
  return groups.flatMap((g): DiffPart[] =>
    g.op === "=" ? [g] : [...(g.removed ? [{ op: "-" as const, text: g.removed }] : []), ...(g.added ? [{ op: "+" as const, text: g.added }] : [])],
  );
}

/** The diff of two token lists, neighbouring tokens of one kind joined into one part. */
export function diffTokens(before: readonly string[], after: readonly string[]): DiffPart[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  const parts: DiffPart[] = [];
  const push = (op: DiffPart["op"], text: string) => {
    const last = parts[parts.length - 1];
    if (last?.op === op) last.text += text;
    else if (text) parts.push({ op, text });
  };
  for (const token of before.slice(0, start)) push("=", token);
  const a = before.slice(start, before.length - end);
  const b = after.slice(start, after.length - end);
  if (a.length * b.length > MAX_CELLS) {
    for (const token of a) push("-", token);
    for (const token of b) push("+", token);
  } else for (const [op, token] of middle(a, b)) push(op, token);
  for (const token of before.slice(before.length - end)) push("=", token);
  return parts;
}

/** The LCS table walked from the start: removals before additions where both fit. */
function middle(a: readonly string[], b: readonly string[]): [DiffPart["op"], string][] {
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
  const out: [DiffPart["op"], string][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(["=", a[i]!]);
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) out.push(["-", a[i++]!]);
    else out.push(["+", b[j++]!]);
  }
  while (i < a.length) out.push(["-", a[i++]!]);
  while (j < b.length) out.push(["+", b[j++]!]);
  return out;
}
