/**
 * `metatools.http` is substituted apart from the rest of the config: a
 * `${VAR}` that only serving HTTP needs (a token, most often) and that is not
 * set must not stop stdio serving or the CLI. Such a section is left out
 * (the http defaults apply) and its error kept for `serve --http`, which
 * refuses with it; never served with fewer tokens than written.
 */
import { isPlainObject } from "../util/data.js";
import { substituteEnv, UnsetVariableError, type Secret } from "./env.js";

export function apartFromHttp(
  raw: unknown,
  env: NodeJS.ProcessEnv,
  file: string,
  secrets: Secret[],
): { rest: unknown; withHttp: (substituted: unknown) => unknown; httpUnset?: UnsetVariableError } {
  if (!isPlainObject(raw) || !isPlainObject(raw.metatools) || raw.metatools.http === undefined) return { rest: raw, withHttp: (value) => value };
  let http: unknown;
  let httpUnset: UnsetVariableError | undefined;
  const found: Secret[] = [];
  try {
    http = substituteEnv(raw.metatools.http, env, file, ["metatools", "http"], found);
    secrets.push(...found);
  } catch (error) {
    if (!(error instanceof UnsetVariableError)) throw error;
    httpUnset = error;
  }
  const rest = { ...raw, metatools: { ...raw.metatools, http: undefined } };
  const withHttp = (value: unknown) =>
    http !== undefined && isPlainObject(value) && isPlainObject(value.metatools) ? { ...value, metatools: { ...value.metatools, http } } : value;
  return { rest, withHttp, ...(httpUnset ? { httpUnset } : {}) };
}
