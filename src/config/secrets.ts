/**
 * Which values substituted from the environment are secrets. The rule
 * (docs/configuration.md, "Secrets"):
 *
 * 1. A credential, which must be at least 6 characters long (config load
 *    refuses a shorter one): a variable whose name looks like a credential,
 *    wherever it is used; a value that lands in a credential field: an entry of
 *    `metatools.http.tokens`, a server `env` entry or header whose name looks
 *    like a credential (`GITHUB_TOKEN`, `Authorization`, `X-Api-Key`), a
 *    URL's password, a URL parameter so named (`?api_key=`), an argument
 *    after such a flag (`--token X`, `--token=X`); and the password of a URL
 *    inside any substituted value (`${DATABASE_URL}`).
 * 2. Redacted too when 6 characters or longer: any other value substituted
 *    into a server's `env`, `headers`, `url` or `args`, or into
 *    `metatools.store.url`, places that often carry credentials under other
 *    names. Shorter ones there are ports, flags and hosts: left alone.
 *
 * A secret shorter than 6 characters cannot be redacted safely: it would be
 * matched inside ordinary text, and left unmatched it shows in pieces.
 * Each `Secret` says which rule made it one (`credential`).
 */
import { ConfigError } from "../util/errors.js";
import { MIN_SECRET_CHARS, type Secret } from "../util/redact.js";

/** A value the environment supplied where secrets go; it must never be shown (see util/redact.ts). */
// The shape of a secret and the shortest one kept out of text live with the redactor, the bottom layer that uses them.
export { MIN_SECRET_CHARS, type Secret };

/** A name's last word that makes it a credential's (`API_KEY`, `X-Auth-Token`, `DB_PASS`, `Cookie`)… */
const CREDENTIAL_WORDS = new Set(["KEY", "PASS", "PWD", "AUTH", "AUTHORIZATION", "CREDS", "COOKIE", "PAT"]);
/** …or that it ends in (`PGPASSWORD`, `GHTOKEN`, `APIKEY`). */
const CREDENTIAL_ENDINGS = /(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|APIKEY|CREDENTIAL)$/;
/** Last words that only say what form the credential before them takes (`SECRET_KEY_BASE`, `PRIVATE_KEY_PEM`, `TOKEN_B64`). */
const FORM_WORDS = new Set(["BASE", "BASE64", "B64", "PEM", "JSON", "HEX", "VALUE"]);

/**
 * Whether a variable, env entry, header, URL parameter or flag name looks
 * like a credential's. Only the last word counts: it names what the value
 * is, while the words before it say whose or what for, so `AUTH_ENABLED`,
 * `PRIVATE_REPOS`, `KEY_PREFIX` and `TOKEN_TTL` are settings about a
 * credential, not one (config load would refuse their short values).
 */
export function looksLikeCredential(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
  // The shell's working directory, not a password.
  if (words.length === 1 && words[0] === "PWD") return false;
  const last = words.length > 1 && FORM_WORDS.has(words.at(-1)!) ? words.at(-2)! : words.at(-1);
  if (!last) return false;
  // Plurals count too (`KEYS`, `CREDENTIALS`), beside words that end in S themselves (`PASS`, `CREDS`).
  return [last, last.replace(/S$/, "")].some((w) => CREDENTIAL_WORDS.has(w) || CREDENTIAL_ENDINGS.test(w));
}

/** Where a `${NAME}` reference sits: the config path of its string, the string as written, and the reference's place in it. */
export interface Reference {
  path: readonly string[];
  template: string;
  start: number;
  end: number;
  /** In an `args` array: the argument before this one, as written. */
  previous?: string;
}

/** Why the reference's value is a secret (rule 1), or undefined. */
export function secretReason(name: string, at: Reference): string | undefined {
  if (looksLikeCredential(name)) return "its name looks like a credential";
  const [top, second, third, key] = at.path;
  if (top === "metatools" && second === "http" && third === "tokens") return "it is a bearer token";
  if (top === "metatools" && second === "search" && third === "embedder" && key === "apiKey") return "it is the embedding service's API key";
  const before = at.template.slice(0, at.start);
  const after = at.template.slice(at.end);
  const authority = /[a-z][a-z0-9+.-]*:\/\/([^/?#\s]*)$/i.exec(before);
  if (authority?.[1]!.includes(":") && /^[^/?#\s]*@/.test(after)) return "it is a URL's password";
  const parameter = /[?&]([^=&#?]+)=[^&#]*$/.exec(before);
  if (parameter && looksLikeCredential(parameter[1]!)) return `it is the URL parameter "${parameter[1]}"`;
  if (top !== "mcpServers") return undefined;
  if (third === "oauth" && key === "clientSecret") return "it is an OAuth client secret";
  if ((third === "env" || third === "headers") && key !== undefined && looksLikeCredential(key))
    return `it is the value of ${third === "env" ? "the variable" : "the header"} ${key}`;
  if (third === "args") {
    const flag = /(?:^|\s)--?([\w.-]+)[=\s]$/.exec(before)?.[1] ?? (before === "" ? /^--?([\w.-]+)$/.exec(at.previous ?? "")?.[1] : undefined);
    if (flag && looksLikeCredential(flag)) return `it follows the flag --${flag}`;
  }
  return undefined;
}

/** Rule 2: a place that often carries credentials under another name. */
export function mayHoldSecrets(path: readonly string[]): boolean {
  if (path[0] === "mcpServers") return ["env", "headers", "url", "args"].includes(path[2] ?? "");
  if (path[0] === "metatools" && path[1] === "search" && path[2] === "embedder") return path[3] === "url";
  return path[0] === "metatools" && path[1] === "store" && path[2] === "url";
}

/**
 * The secrets one substituted value adds: the value (when rule 1 or 2 makes
 * it one), the credential of an `Authorization`-style value (`Bearer x`),
 * and the password of any URL inside it. Throws a ConfigError naming the
 * field and the variable for a secret too short to redact.
 */
export function secretsOf(name: string, value: string, at: Reference, file: string, field: string): Secret[] {
  const found: Secret[] = [];
  const add = (secret: string, why: string | undefined) => {
    if (!why) {
      if (secret.length >= MIN_SECRET_CHARS && !found.some((s) => s.value === secret)) found.push({ name, value: secret, credential: false });
      return;
    }
    if (secret.length < MIN_SECRET_CHARS) {
      throw new ConfigError(
        file,
        field,
        `\${${name}} is a secret here (${why}), but ${secret === value ? "its value" : "that part of its value"} has only ${secret.length} characters: a secret that short cannot be kept out of logs and replies reliably. Use a secret of at least ${MIN_SECRET_CHARS} characters; or, if ${name} holds no secret, write its value into the config instead of \${${name}}`,
      );
    }
    const known = found.find((s) => s.value === secret);
    if (known) known.credential = true;
    else found.push({ name, value: secret, credential: true });
  };
  const why = secretReason(name, at);
  if (why || mayHoldSecrets(at.path)) {
    add(value, why);
    const scheme = /^(?:bearer|basic|token|bot)\s+(\S+)$/i.exec(value);
    if (scheme) add(scheme[1]!, why && "it is the credential of an authorization value");
  }
  for (const password of urlPasswords(value)) add(password, "it is the password of a URL");
  return found;
}

/** Passwords of `scheme://user:password@host` URLs in a text, as written and percent-decoded. */
function urlPasswords(text: string): string[] {
  const out: string[] = [];
  // Greedy up to the authority's last `@`: an unencoded `@` in a password is common, and the last one ends it.
  for (const match of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^/?#\s:@]*:([^/?#\s]*)@/gi)) {
    const password = match[1]!;
    if (!password) continue;
    out.push(password);
    try {
      const decoded = decodeURIComponent(password);
      if (decoded !== password && decoded.length >= MIN_SECRET_CHARS) out.push(decoded);
    } catch {
      // Not valid percent-encoding: as written is the only form.
    }
  }
  return out;
}
