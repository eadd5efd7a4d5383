/**
 * Secrets from the environment (tokens in headers, keys in URLs) never show:
 * every log line, error and response passes through a redactor that
 * replaces each secret's value, and its URL-encoded form, with
 * `[redacted $NAME]`.
 */
import type { Secret } from "../config/env.js";
import type { Logger } from "./log.js";

export type Redact = (text: string) => string;

export function redactor(secrets: readonly Secret[]): Redact {
  const forms = new Map<string, string>();
  for (const { name, value } of secrets) {
    for (const form of [value, encodeURIComponent(value)]) if (!forms.has(form)) forms.set(form, `[redacted $${name}]`);
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...forms.entries()].sort((a, b) => b[0].length - a[0].length);
  if (!ordered.length) return (text) => text;
  return (text) => {
    let out = text;
    for (const [value, label] of ordered) if (out.includes(value)) out = out.split(value).join(label);
    return out;
  };
}

export function redactingLogger(logger: Logger, redact: Redact): Logger {
  return {
    debug: (m) => logger.debug(redact(m)),
    info: (m) => logger.info(redact(m)),
    warn: (m) => logger.warn(redact(m)),
    error: (m) => logger.error(redact(m)),
  };
}
