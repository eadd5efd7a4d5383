/**
 * The config's sign-in settings (docs/oauth.md): where tokens are kept, the
 * token file kept from the code tools, and client secrets as secrets.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { signsInKind } from "../model/transport-kinds.js";
import type { Secret } from "./env.js";
import type { CodeConfig, Metatools, ResolvedConfig } from "./resolved.js";
import { MIN_SECRET_CHARS } from "./secrets.js";

/** The token file beside the config (or where it says), or the shared store, which must be one. */
export function resolveAuth(section: Metatools["auth"], where: { file?: string; baseDir: string }): ResolvedConfig["auth"] {
  // Sign-ins go beside the config (and its lock file) unless metatools.auth says otherwise.
  if (section.storage === "store") return { kind: "store" };
  if (!where.file) return undefined;
  return { kind: "file", file: resolve(where.baseDir, section.file) };
}

/** A token file moved inside the code root stays out of the code tools' reach, as the default name is by the default deny list. */
export function withTokenFileDenied(code: CodeConfig, auth: ResolvedConfig["auth"]): CodeConfig {
  if (auth?.kind !== "file") return code;
  const inside = relative(code.root, auth.file);
  if (inside.startsWith("..") || isAbsolute(inside)) return code;
  return { ...code, deny: [...code.deny, `/${inside.split(sep).join("/")}*`] };
}

/** A client secret written into the config as it is is a secret too (one from ${ENV} is found as the file is read). */
export function oauthSecrets(config: ResolvedConfig): Secret[] {
  return config.backends.flatMap((b): Secret[] => {
    const value = signsInKind(b) ? b.oauth?.clientSecret : undefined;
    return value && value.length >= MIN_SECRET_CHARS
      ? [{ name: "clientSecret", value, credential: true, label: `[redacted OAuth client secret of ${b.namespace}]` }]
      : [];
  });
}
