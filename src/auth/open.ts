/**
 * The sign-in pieces a config asks for: where credentials are kept, the
 * token signer each remote backend signs its requests with, and the exact
 * command that signs a backend in.
 */
import type { ResolvedConfig, SignInSpec } from "../config/resolved.js";
import { signsInKind } from "../model/transport-kinds.js";
import { openConfiguredStore } from "../store/open.js";
import { FileCredentials, type Credentials } from "./credentials.js";
import { SharedCredentials } from "./shared-credentials.js";
import { TokenSigner } from "./signer.js";

/** The config's credentials; undefined when it has no file (and so no remote backends). */
export function openCredentials(config: ResolvedConfig): Credentials | undefined {
  if (!config.auth) return undefined;
  if (config.auth.kind === "file") return new FileCredentials(config.auth.file);
  return new SharedCredentials(openConfiguredStore(config.store, "auth"));
}

/** A remote backend that signs in with OAuth when asked. */
export function signsIn(spec: ResolvedConfig["backends"][number]): spec is SignInSpec {
  return signsInKind(spec) && spec.oauth !== undefined;
}

/** `metatools auth login NS --config FILE`: runnable from any folder. */
export function loginCommand(namespace: string, config: Pick<ResolvedConfig, "file">): string {
  return `metatools auth login ${namespace}${config.file ? ` --config ${shellWord(config.file)}` : ""}`;
}

export function createSigner(spec: SignInSpec, config: ResolvedConfig, credentials: Credentials, secret: (value: string) => void): TokenSigner {
  return new TokenSigner(spec, credentials, { secret, loginCommand: loginCommand(spec.namespace, config) });
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
