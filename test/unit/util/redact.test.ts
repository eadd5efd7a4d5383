/**
 * The redactor (src/util/redact.ts) as a table: each secret in each form
 * encoders give it is replaced whole, text around it is kept, ordinary text
 * is left alone, and no text, however made, makes it slow.
 */
import { describe, expect, it } from "vitest";
import { redactDeep, redactor } from "../../../src/util/redact.js";
import { findLeaks, SECRETS } from "../../helpers/leaks.js";

const secrets = Object.entries(SECRETS).map(([name, value]) => ({ name, value }));
const redact = redactor(secrets);

const json = (v: string) => JSON.stringify(v).slice(1, -1);
const ascii = (v: string) => json(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const password = (v: string) => {
  const url = new URL("http://user@example.test/");
  url.password = v;
  return url.href;
};
const base64 = (v: string, shift: number, alphabet: BufferEncoding) => Buffer.concat([Buffer.alloc(shift, 0x7a), Buffer.from(v)]).toString(alphabet);

/** [form, encode] */
const FORMS: [string, (v: string) => string][] = [
  ["raw", (v) => v],
  ["JSON", json],
  ["JSON twice", (v) => json(json(v))],
  ["JSON three times", (v) => json(json(json(v)))],
  ["JSON, ASCII only", ascii],
  ["JSON, ASCII only, in JSON", (v) => json(ascii(v))],
  ["encodeURIComponent", encodeURIComponent],
  ["encodeURIComponent, lower-case hex", (v) => encodeURIComponent(v).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
  ["encodeURI", encodeURI],
  ["form encoding", (v) => new URLSearchParams({ v }).toString().slice(2)],
  ["a URL's password", password],
  ["a URL's password, in JSON", (v) => json(password(v))],
  ...[0, 1, 2].flatMap((shift): [string, (v: string) => string][] => [
    [`base64 at alignment ${shift}`, (v) => base64(v, shift, "base64")],
    [`base64url at alignment ${shift}`, (v) => base64(v, shift, "base64url")],
  ]),
];

describe("the redactor", () => {
  for (const [name, value] of Object.entries(SECRETS)) {
    it.each(FORMS)(`replaces ${name} written as %s`, (_form, encode) => {
      const text = `before «${encode(value)}» after`;
      const out = redact(text);
      expect(out).toContain(`[redacted $${name}]`);
      expect(findLeaks(out)).toEqual([]);
      expect(out.startsWith("before «")).toBe(true);
    });
  }

  it("leaves ordinary text alone, with its quotes, escapes and encodings", () => {
    const text = 'plain "quoted" \\ back\tslash %40 a+b Zx~ 4-char pieces: "uo\\ and w0r, and base64 cmVkYWN0';
    expect(redact(text)).toBe(text);
  });

  it("redacts keys as well as values, at any depth", () => {
    const value = { [SECRETS.MT_SIX_KEY!]: [{ note: `x${SECRETS.MT_URL_PASS}y` }], n: 1, ok: true, none: null };
    expect(redactDeep(value, redact)).toEqual({ "[redacted $MT_SIX_KEY]": [{ note: "x[redacted $MT_URL_PASS]y" }], n: 1, ok: true, none: null });
  });

  it("replaces a secret that contains another whole, under its own name", () => {
    const nested = redactor([
      { name: "INNER", value: "abc123" },
      { name: "OUTER", value: "xx-abc123-yy" },
    ]);
    expect(nested("1 xx-abc123-yy 2 abc123")).toBe("1 [redacted $OUTER] 2 [redacted $INNER]");
  });

  it("replaces a multi-line secret line by line too, and in either Unicode normal form", () => {
    const pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----";
    const multi = redactor([
      { name: "PEM", value: pem },
      { name: "ACCENT", value: "caf\u00e9-Zq~x" },
    ]);
    expect(multi(`stderr: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n${JSON.stringify(pem)}`)).toBe('stderr: [redacted $PEM]\n"[redacted $PEM]"');
    expect(multi("cafe\u0301-Zq~x")).toBe("[redacted $ACCENT]");
  });

  it("takes linear time on text made to make a backtracking matcher slow", () => {
    const hostile = redactor([{ name: "S", value: '\\\\\\\\\\\\""""%%%%  ' }]);
    for (const text of ["\\".repeat(1 << 20), '\\"'.repeat(1 << 19), "%25".repeat(1 << 18), "\\\\u005c".repeat(1 << 17)]) {
      const started = performance.now();
      hostile(`${text}!`);
      expect(performance.now() - started).toBeLessThan(1500);
    }
  });
});
