/**
 * Secrets from the environment never show. Each secret is replaced by
 * `[redacted $NAME]` in every form it can take in text (raw, JSON-escaped,
 * URL-encoded, base64: see secret-forms.ts).
 *
 * Ordering rule: redact first, then cut. Text that is sliced, shortened,
 * escaped or encoded before redaction can leave a piece of a secret that no
 * redactor recognises. So backends' output is redacted as it enters
 * metatools (backends/redacting.ts) and every edge (responses, logs, doctor)
 * redacts again, structurally, before it shortens anything.
 */
import type { Logger } from "./log.js";
import { secretPattern } from "./secret-forms.js";

export interface Secret {
  name: string;
  value: string;
  /**
   * True for a credential (rule 1), false for a value redacted only for where
   * it was substituted (rule 2): rule 2 catches ports and paths too, so code
   * that scrubs text it must still search (project files) takes out only
   * credentials, while every edge redacts both. The config loader always
   * sets it; it is optional so that a list made by hand (a test's) still
   * builds a redactor, and an unset one is to be read as true, the cautious side.
   */
  credential?: boolean;
  /** What it is replaced by; default `[redacted $NAME]`, which names the variable it came from. */
  label?: string;
}

export const MIN_SECRET_CHARS = 6;

export type Redact = (text: string) => string;

export const noRedaction: Redact = (text) => text;

export function redactor(secrets: readonly Secret[]): Redact {
  const byValue = new Map<string, string>();
  for (const { name, value, label } of secrets) {
    for (const form of variants(value)) if (!byValue.has(form)) byValue.set(form, label ?? `[redacted $${name}]`);
  }
  // Longest first: where two could match at one place (one secret inside another), the whole one wins.
  const ordered = [...byValue].sort((a, b) => b[0].length - a[0].length);
  if (!ordered.length) return noRedaction;
  const labels = ordered.map(([, label]) => label);
  const pattern = new RegExp(ordered.map(([value]) => `(${secretPattern(value)})`).join("|"), "g");
  return (text) =>
    text.replace(pattern, (...groups: unknown[]) => {
      const index = groups.slice(1, labels.length + 1).findIndex((group) => group !== undefined);
      return labels[index] ?? labels[0]!;
    });
}

/**
 * A redactor that learns secrets after it is made (tokens obtained while
 * serving): `redact` is one function for its whole life, so whatever was
 * handed it redacts what is learnt later too.
 */
export class GrowingRedactor {
  private current: Redact;
  private readonly known: Secret[];
  private readonly learnt = new Map<string, Secret[]>();
  readonly redact: Redact = (text) => this.current(text);

  constructor(secrets: readonly Secret[]) {
    this.known = [...secrets];
    this.current = redactor(this.known);
  }

  /** Adds a secret shown as `label`; a label keeps its last few (old tokens, once replaced, still never show). */
  add(value: string, label: string): void {
    if (value.length < MIN_SECRET_CHARS) return;
    const list = this.learnt.get(label) ?? [];
    const known = list.findIndex((s) => s.value === value);
    if (known !== -1) {
      // Still in use: kept, and the last to be forgotten.
      list.push(...list.splice(known, 1));
      return;
    }
    this.learnt.set(label, [...list.slice(-(KEPT_PER_LABEL - 1)), { name: label, value, label, credential: true }]);
    this.current = redactor([...this.known, ...[...this.learnt.values()].flat()]);
  }
}

/** Tokens of one label remembered: the current ones and those they replaced, which may still be quoted somewhere. */
const KEPT_PER_LABEL = 16;

/**
 * The value, composed and decomposed (é as one code point or as e and an
 * accent: text passed through other systems may come back either way), and
 * each line of a multi-line one (a PEM key): output read line by line, like a
 * child's stderr, holds a line at a time.
 */
function variants(value: string): string[] {
  const lines = value.includes("\n") ? value.split(/\r?\n/).filter((line) => line.trim().length >= MIN_SECRET_CHARS) : [];
  return [value, value.normalize("NFC"), value.normalize("NFD"), ...lines].filter(Boolean);
}

/** A copy of a JSON-like value with every string, and every object key, redacted. */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (redact === noRedaction) return value;
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: Redact): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, redact));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), walk(item, redact)]));
  }
  return value;
}

/**
 * The same error with its message (and stack) redacted, kept as the same
 * object so its class and code still tell callers what happened.
 */
export function redactError(error: unknown, redact: Redact): unknown {
  if (!(error instanceof Error)) return typeof error === "string" ? redact(error) : error;
  error.message = redact(error.message);
  if (error.stack) error.stack = redact(error.stack);
  return error;
}

export function redactingLogger(logger: Logger, redact: Redact): Logger {
  return {
    debug: (m) => logger.debug(redact(m)),
    info: (m) => logger.info(redact(m)),
    warn: (m) => logger.warn(redact(m)),
    error: (m) => logger.error(redact(m)),
  };
}
