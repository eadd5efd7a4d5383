/**
 * Words from outside (a backend's question, its error, its progress), as a
 * person or a model is shown them: as theirs. A backend that can write a
 * carriage return, an escape sequence, a bidi override or sixty blank lines
 * can make its text read as if metatools wrote it (metatools' own approval
 * question, say), or hide the name that says whose it is. So:
 *
 * - every control character (C0 but tab, DEL, C1), every format character
 *   (bidi marks, embeddings, overrides and isolates, zero-width characters,
 *   the BOM, tag characters) and every other character that prints as
 *   nothing is shown as a visible escape (`\u202e`, `\u{e0041}`), the way
 *   JSON spells it: a person sees that something was there, and what;
 *   joiners in scripts that spell with them (Persian, Hindi, emoji) stay;
 * - every line break (`\r` and the Unicode ones too) ends a line, and each
 *   line carries the origin (`[notes] …`), so no line can pass for
 *   metatools' and none can overwrite the name;
 * - runs of blank lines become one, and the whole is bounded.
 */
import { JOINER_IN_USE as SCANNER_JOINER } from "./text.js";

/** Every way a text can start a new line. */
export const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/** Joiners in spelling (text.ts): one at a time, so without the global flag. */
const JOINER_IN_USE = new RegExp(SCANNER_JOINER.source, "u");
/** One variation selector right after a character that is not plain ASCII picks its glyph (an emoji's U+FE0F); more, or after ASCII, carry smuggled bytes. */
const SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
/** What prints as nothing or moves text: controls, format characters, surrogates, private use, unassigned, default-ignorables. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
/** Printable ASCII and tab only: nothing to look at one by one (the common case). */
const PLAIN = /^[\t\x20-\x7e]*$/;

/** The most characters of one quoted text, after escaping: a question is a few sentences, not a page. */
export const QUOTE_CHARS = 4000;

/** `char` as a person reads an escape: `\u001b`, `\u202e`, `\u{e0041}`. */
function escape(char: string): string {
  const cp = char.codePointAt(0)!;
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, "0")}` : `\\u{${cp.toString(16)}}`;
}

/** One line of outside text with everything invisible shown as an escape (tab stays); line breaks, if any, are escaped too. */
export function visibleLine(line: string): string {
  if (PLAIN.test(line)) return line;
  let out = "";
  let previous = "";
  const chars = [...line];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    let shown = char;
    if (char !== "\t" && INVISIBLE.test(char)) {
      const keep =
        ((char === "\u200c" || char === "\u200d") && JOINER_IN_USE.test(`${previous}${char}`)) ||
        (SELECTOR.test(char) && previous > "\x7f" && !SELECTOR.test(previous) && !SELECTOR.test(chars[i + 1] ?? ""));
      if (!keep) shown = escape(char);
    }
    out += shown;
    previous = char;
  }
  return out;
}

/**
 * A text of `origin`'s as lines a person reads: each line made visible and
 * marked `[origin] `, blank runs made one, at most `maxChars` characters of
 * text in all (then `… (N more characters)`).
 */
export function theirs(origin: string, text: string, maxChars = QUOTE_CHARS): string {
  const mark = `[${origin}] `;
  const lines: string[] = [];
  let left = maxChars;
  let cut = 0;
  let blank = true;
  for (const raw of text.split(LINE_BREAK)) {
    const line = visibleLine(raw.trimEnd());
    if (!line.trim()) {
      blank = true;
      continue;
    }
    if (left <= 0) {
      cut += line.length;
      continue;
    }
    if (blank && lines.length) lines.push(mark.trimEnd());
    blank = false;
    const kept = line.length > left ? line.slice(0, left) : line;
    cut += line.length - kept.length;
    left -= kept.length;
    lines.push(mark + kept);
  }
  if (!lines.length) lines.push(mark.trimEnd());
  if (cut) lines[lines.length - 1] += `… (${cut} more characters)`;
  return lines.join("\n");
}

/**
 * A longer text of theirs quoted after a sentence that names whose it is
 * (an error, a stderr tail): each line made visible, blank runs made one,
 * at most `maxChars` characters, lines kept (a JSON string shows them as `\n`).
 */
export function theirsText(text: string, maxChars = QUOTE_CHARS): string {
  const lines: string[] = [];
  let blank = false;
  for (const raw of text.split(LINE_BREAK)) {
    const line = visibleLine(raw.trimEnd());
    if (!line.trim()) {
      blank = lines.length > 0;
      continue;
    }
    if (blank) lines.push("");
    blank = false;
    lines.push(line);
  }
  const joined = lines.join("\n");
  return joined.length > maxChars ? `${joined.slice(0, maxChars)}… (${joined.length - maxChars} more characters)` : joined;
}

/** A short text of theirs inside a sentence (a title, an error): one line, made visible, at most `maxChars` characters. */
export function theirsInline(text: string, maxChars = 300): string {
  const line = visibleLine(
    text
      .split(LINE_BREAK)
      .map((part) => part.trim())
      .filter(Boolean)
      .join(" ")
      .replace(/\s{2,}/g, " "),
  );
  return line.length > maxChars ? `${line.slice(0, maxChars)}… (${line.length - maxChars} more characters)` : line;
}

/** Whether a value a backend expects back as it is (an enum value, a property key) holds anything a person could not see. */
export function hidesCharacters(text: string): boolean {
  return !PLAIN.test(text) && (LINE_BREAK.test(text) || visibleLine(text) !== text);
}
