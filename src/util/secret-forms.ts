/**
 * The shapes a secret takes once the text around it has been encoded, as
 * one regular-expression source per secret. Redaction that looks only for
 * the raw value misses the same value after JSON escaping (`q\"uo\\te`), URL
 * serialisation (`rp%40ss$word`: the WHATWG URL encodes `@` in a password
 * but leaves `$` and `+`), form encoding (a space as `+`) or base64.
 *
 * Per character: raw, or percent-encoded (each UTF-8 byte, either hex case;
 * `+` for a space), so mixed URL encodings match too. The whole secret
 * JSON-escaped 0 to 3 times (JSON in a string in JSON…), each character as
 * JSON writes it or as a `\u00e9` escape. ASCII letters and digits are
 * matched raw only: encoders leave them alone.
 *
 * Base64, standard and URL-safe: a secret inside a longer encoded text
 * starts at one of three byte alignments, and each gives different
 * characters; only those that depend on the secret alone are matched.
 *
 * The pattern has no quantifiers, only alternatives of fixed strings that
 * differ in their first characters, so it cannot backtrack badly whatever
 * the text (a backend that knows a secret could otherwise send text made
 * to hang the redactor).
 */
import { escapeRegExp } from "./glob.js";

/** How many levels of JSON escaping are recognised. */
const JSON_DEPTH = 3;

/** The regex source matching `value` in any of the forms above. */
export function secretPattern(value: string): string {
  const forms: string[] = [];
  for (let depth = 0; depth <= JSON_DEPTH; depth++) forms.push(formPattern(value, depth));
  for (const fragment of base64Fragments(value)) forms.push(formPattern(fragment, 0), formPattern(fragment, 1));
  return [...new Set(forms)].join("|");
}

/**
 * The base64 text that encodes `value` at each alignment (0, 1 or 2 bytes
 * before it in the encoded stream), standard and URL-safe, without the
 * characters that also depend on neighbouring bytes.
 */
export function base64Fragments(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out = new Set<string>();
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    // Character i carries bits [6i, 6i + 6); the secret's are [8·shift, 8·(shift + n)).
    const fragment = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (fragment.length < 4) continue;
    out.add(fragment);
    out.add(fragment.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...out];
}

function formPattern(form: string, depth: number): string {
  return Array.from(form, (char) => charPattern(char, depth)).join("");
}

/** How JSON writes the characters it escapes short; `/` is escaped by some writers, not by JSON.stringify. */
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };

/** One character (a code point) in every encoding of it, inside text JSON-escaped `depth` times. */
function charPattern(char: string, depth: number): string {
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  const alternatives = new Set<string>([escapeRegExp(escapeJson(char, depth))]);
  if (depth > 0) {
    // The first escaping may write it short (`\"`, `\t`) or as \u escapes (ASCII-only writers); later ones escape that.
    const short = SHORT_ESCAPES[char];
    if (short) alternatives.add(escapeRegExp(escapeJson(short, depth - 1)));
    const prefix = escapeRegExp(escapeJson("\\", depth - 1));
    alternatives.add(Array.from({ length: char.length }, (_, i) => `${prefix}u${hex(char.charCodeAt(i), 4)}`).join(""));
  }
  alternatives.add(Array.from(Buffer.from(char, "utf8"), (byte) => `%${hex(byte, 2)}`).join(""));
  if (char === " ") alternatives.add("\\+");
  return `(?:${[...alternatives].join("|")})`;
}

/** `text` JSON-escaped `depth` times. */
function escapeJson(text: string, depth: number): string {
  let out = text;
  for (let i = 0; i < depth; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
}

/** `n` in hex, `width` digits, each letter in either case. */
function hex(n: number, width: number): string {
  return Array.from(n.toString(16).padStart(width, "0"), (digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join("");
}
