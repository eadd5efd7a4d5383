/**
 * The redaction tests' secrets and their leak check. A leak is a secret
 * whole or in part: any 4 consecutive characters of it, looked for raw,
 * JSON-escaped (as JSON.stringify writes them, twice, and as ASCII-only
 * writers do) and URL-encoded (encodeURIComponent, form encoding, a URL's
 * password). In base64 a leak is any 6 consecutive characters of the
 * secret's encoding at any of the three byte alignments, standard or
 * URL-safe: 4½ bytes of the secret. (Shorter base64 runs turn up by chance:
 * output handles are base64 too.)
 *
 * The secrets are made of characters that ordinary output does not string
 * together (`J_Kw`, `Z$w0`, `x~Q^`), so any piece found is a real leak.
 */

/** Name → value; lengths 6 to 200, with quotes, backslashes, a tab, `@`, `+`, `%`, spaces and non-ASCII. */
export const SECRETS: Record<string, string> = {
  MT_QUOTE_TOKEN: 'Qz"uo\\Vx\tJ_Kw',
  MT_URL_PASS: "Rp@sZ$w0rdQ+x",
  MT_SIX_KEY: "Jx%9Wq",
  MT_UNI_SECRET: "Ж𝒳ñ¿Wq§Üé",
  MT_SPACE_PASSWORD: patterned(64, 7),
  MT_LONG_TOKEN: patterned(200, 3),
};

/**
 * `length` characters: two rare letters, then a symbol or a space, over and
 * over, so that every 4-character piece holds a character that base64
 * never does, beside letters that words seldom put together.
 */
function patterned(length: number, seed: number): string {
  const letters = "QXZJKVWqxzjkvw";
  const symbols = "~^*!'<& ";
  let state = seed;
  // A linear congruential generator; its low bits repeat quickly, so the high ones choose.
  const next = (n: number) => Math.floor((state = (state * 1103515245 + 12345) % 2147483648) / 65536) % n;
  return Array.from({ length }, (_, i) => (i % 3 === 2 ? symbols[next(symbols.length)] : letters[next(letters.length)])).join("");
}

/** Every leak of every secret in `text`, described ("MT_URL_PASS: «w0rd» (raw)"); empty when there is none. */
export function findLeaks(text: string, secrets: Record<string, string> = SECRETS): string[] {
  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    for (const [form, piece] of pieces(secret)) if (text.includes(piece)) found.push(`${name}: «${piece}» (${form})`);
  }
  return [...new Set(found)];
}

/** [form, text] for every piece of `secret` worth looking for. */
export function pieces(secret: string): [string, string][] {
  const chars = Array.from(secret);
  const out: [string, string][] = [];
  for (let i = 0; i + 4 <= chars.length; i++) {
    const piece = chars.slice(i, i + 4).join("");
    const json = JSON.stringify(piece).slice(1, -1);
    const url = new URL("http://user@example.test/");
    url.password = piece;
    out.push(
      ["raw", piece],
      ["json", json],
      ["json twice", JSON.stringify(json).slice(1, -1)],
      ["json ascii", json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)],
      ["uri", encodeURIComponent(piece)],
      ["form", new URLSearchParams({ v: piece }).toString().slice(2)],
      ["url password", url.password],
    );
  }
  const bytes = Buffer.from(secret, "utf8");
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    // Only the characters that carry the secret's bits alone.
    const own = encoded.slice(Math.ceil((shift * 4) / 3), Math.floor(((shift + bytes.length) * 4) / 3));
    for (let i = 0; i + 6 <= own.length; i++) {
      const run = own.slice(i, i + 6);
      out.push([`base64/${shift}`, run], [`base64url/${shift}`, run.replace(/\+/g, "-").replace(/\//g, "_")]);
    }
  }
  return out;
}
