/**
 * What the poisoning scanner does to text before and after its rules read
 * it. An agent reads "Ig\u200Bnore", "Ignоre" (Cyrillic о) and
 * "ignore_previous_instructions" as "ignore previous instructions", so the
 * rules must too: `normalize` folds what renders alike into one spelling,
 * `identifierWords` reads an identifier as words, `hiddenCharacters` reports
 * characters that carry text a reviewer cannot see, and `printable` quotes
 * text so that a finding never smuggles those characters itself.
 */

/** Code points that render as nothing: zero-width spaces and joiners, soft hyphens, variation selectors, tags, bidi controls. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const WORD = /[\p{L}\p{M}]+/gu;
const MARK = /\p{M}/gu;
const LATIN = /\p{Script=Latin}/u;

/**
 * Cyrillic, Greek and Armenian letters drawn like Latin ones (after Unicode's
 * confusables.txt, letters only; NFKC already folds fullwidth and
 * mathematical letters). Pairs of look-alike and Latin letter.
 */
const LOOKALIKES = new Map(
  [
    "аa",
    "Аa",
    "Вb",
    "сc",
    "Сc",
    "ԁd",
    "еe",
    "Еe",
    "һh",
    "Нh",
    "іi",
    "Іi",
    "ӏl",
    "Ӏl",
    "јj",
    "Јj",
    "Кk",
    "Мm",
    "оo",
    "Оo",
    "рp",
    "Рp",
    "ԛq",
    "Ԛq",
    "ѕs",
    "Ѕs",
    "Тt",
    "уy",
    "Уy",
    "ѵv",
    "Ѵv",
    "ԝw",
    "Ԝw",
    "хx",
    "Хx",
    "үy",
    "Үy",
    "αa",
    "Αa",
    "Βb",
    "ϲc",
    "Ϲc",
    "Εe",
    "Ηh",
    "ιi",
    "Ιi",
    "ϳj",
    "κk",
    "Κk",
    "Μm",
    "Νn",
    "νv",
    "οo",
    "Οo",
    "ρp",
    "Ρp",
    "Τt",
    "υu",
    "Υy",
    "γy",
    "χx",
    "Χx",
    "Ζz",
    "օo",
    "սu",
    "հh",
    "ոn",
    "ցg",
  ].map((pair) => [pair[0]!, pair[1]!]),
);

/**
 * The text the rules read: NFKC, without default-ignorable code points, and
 * with every word that mixes Latin letters with look-alikes, or is made only
 * of look-alikes, spelled in plain Latin letters without diacritics. A word
 * of Russian or Greek that has letters with no Latin twin is left as it is:
 * the rules are English phrases, and only a disguised one should meet them.
 */
/** Printable ASCII: nothing to normalise, fold or hide (the common case, and scanning 10,000 tools must stay fast). */
const ASCII = /^[\t-\r\x20-\x7e]*$/;

export function normalize(text: string): string {
  if (ASCII.test(text)) return text;
  return text.normalize("NFKC").replace(IGNORABLE, "").replace(WORD, foldWord);
}

function foldWord(word: string): string {
  const base = word.normalize("NFD").replace(MARK, "");
  const chars = [...base];
  if (!LATIN.test(base) && !chars.every((c) => LOOKALIKES.has(c))) return word;
  return chars.map((c) => LOOKALIKES.get(c) ?? c).join("");
}

/** An identifier (`ignore_all_previous`, `sendTheEnv`) as words: `_`, `-` and camelCase humps between letters become spaces. */
export function identifierWords(text: string): string {
  // Nothing to split: no separator between words and no lower-case letter before a capital.
  if (!/[_-]|[a-z][A-Z]/.test(text) && ASCII.test(text)) return text;
  return text.replace(/(?<=[\p{L}\p{N}])[_-]+(?=[\p{L}\p{N}])/gu, " ").replace(/(?<=\p{Ll})(?=\p{Lu})/gu, " ");
}

/** Bidirectional overrides, and Unicode tag characters: they hide or reorder text a person reviewing it does not see. */
const OVERRIDE_OR_TAG = /[\u202D\u202E]|[\u{E0000}-\u{E007F}]/u;
/** Bidi embeddings and isolates have a job in text that mixes directions; in text with no right-to-left letters they only reorder what is seen. */
const EMBEDDING = /[\u202A-\u202C\u2066-\u2069]/u;
const RIGHT_TO_LEFT = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Adlam}]/u;
/** A subdivision flag (🏴 + tag letters + cancel tag, as for Scotland) is the one legitimate use of tag characters. */
const FLAG = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,6}\u{E007F}/gu;
/** Zero-width characters: one stray is common in pasted text; several can split words to slip past a reader or a filter. */
const ZERO_WIDTH = /[\u200B-\u200F\u2060-\u2064\uFEFF]/gu;
/** Joiners after an emoji or a letter of a script that needs them (Persian, Hindi, …) are spelling, not hiding. */
export const JOINER_IN_USE =
  /(?<=[\p{L}\p{M}\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F])(?<![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Inherited}])[\u200C\u200D]/gu;
/**
 * Variation selectors choose a glyph for the character before them, one at a
 * time: an emoji's U+FE0F, a keycap's digit, an ideograph's variant. A run of
 * them, or one with no base or a plain ASCII base that is not a keycap, is
 * bytes smuggled behind a visible character.
 */
const VARIATION_SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]+/gu;
/**
 * An invisible character between two letters of an alphabetic script splits
 * a word for a filter while the reader sees it whole. Scripts whose spelling
 * needs joiners (Arabic, Persian, Indic) are not matched.
 */
const SPLIT_WORD =
  /(?<=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{Default_Ignorable_Code_Point}+(?=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])/u;
const WORD_WITH_IGNORABLES = /[\p{L}\p{M}\p{Default_Ignorable_Code_Point}]+/gu;

/** Printable, short quotes for each way `text` hides characters; empty when it hides none. */
export function hiddenCharacters(text: string): string[] {
  const quotes: string[] = [];
  if (ASCII.test(text)) return quotes;
  const hidden = OVERRIDE_OR_TAG.exec(text.replace(FLAG, (flag) => "_".repeat(flag.length))) ?? (RIGHT_TO_LEFT.test(text) ? null : EMBEDDING.exec(text));
  if (hidden) quotes.push(`${codePoint(hidden[0])} at ${hidden.index}`);
  const zeroWidth = (text.match(ZERO_WIDTH)?.length ?? 0) - (text.match(JOINER_IN_USE)?.length ?? 0);
  if (zeroWidth >= 3) quotes.push(`${zeroWidth} zero-width characters`);
  const smuggled = smuggledSelectors(text);
  if (smuggled) quotes.push(smuggled);
  const split = SPLIT_WORD.exec(text);
  if (split) {
    const word = [...text.matchAll(WORD_WITH_IGNORABLES)].find((w) => w.index <= split.index && split.index < w.index + w[0].length)!;
    quotes.push(`${codePoint(split[0])} inside the word '${printable(word[0], 60)}'`);
  }
  return quotes;
}

function smuggledSelectors(text: string): string | undefined {
  for (const run of text.matchAll(VARIATION_SELECTORS)) {
    const base = [...text.slice(Math.max(0, run.index - 2), run.index)].pop() ?? "";
    const keycap = text[run.index + run[0].length] === "\u20E3";
    const count = [...run[0]].length;
    if (count > 1 || base === "" || (base <= "\x7F" && !keycap)) {
      const payload = count > 1 ? `, reading '${printable(decodeSelectors(run[0]), 40)}'` : "";
      return `${count} variation selector${count > 1 ? "s" : ""} after '${printable(base)}' at ${run.index}${payload}`;
    }
  }
  return undefined;
}

/**
 * The text smuggled in invisible characters, decoded as the known tools
 * encode it, so the rules can read it too: runs of variation selectors carry
 * one byte each (U+FE00–FE0F for 0–15, U+E0100–E01EF for 16–255, UTF-8), tag
 * characters one ASCII character each (U+E0020–E007E).
 */
export function smuggledText(text: string): string {
  if (ASCII.test(text)) return "";
  const selectors = [...text.matchAll(VARIATION_SELECTORS)].filter((run) => [...run[0]].length > 1).map((run) => decodeSelectors(run[0]));
  const tags = [...text.replace(FLAG, "").matchAll(TAGS)].map((run) => String.fromCodePoint(...[...run[0]].map((c) => c.codePointAt(0)! - 0xe0000)));
  return [...selectors, ...tags].join("\n");
}

const TAGS = /[\u{E0020}-\u{E007E}]+/gu;

function decodeSelectors(run: string): string {
  const bytes = [...run].map((c) => {
    const cp = c.codePointAt(0)!;
    return cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16;
  });
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

/** Anything that does not print (controls, format characters, default-ignorables, unassigned) is shown as `[U+XXXX]`; over `max` characters the quote is cut with `…`. */
export function printable(text: string, max = 80): string {
  let out = "";
  for (const char of text) {
    const shown = UNPRINTABLE.test(char) ? `[${codePoint(char)}]` : char;
    if (out.length + shown.length > max) return `${out}…`;
    out += shown;
  }
  return out;
}

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}
