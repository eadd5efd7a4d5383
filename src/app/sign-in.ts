/**
 * Remote backends' OAuth sign-ins: where their credentials are kept, and the
 * redactor that learns each token as it is read or renewed.
 */
import type { Credentials } from "../auth/credentials.js";
import type { TokenSigner } from "../auth/signer.js";
import { createSigner, openCredentials, signsIn } from "../auth/open.js";
import type { BackendSpec, ResolvedConfig } from "../config/resolved.js";
import { GrowingRedactor, redactor, type Redact } from "../util/redact.js";

export interface SignIn {
  /** Replaces secrets from the environment, and sign-in tokens once seen. */
  redact: Redact;
  /** Undefined when no backend signs in. */
  credentials?: Credentials;
  /** What signs a backend's requests with its stored tokens; undefined for one that does not sign in. */
  tokenSigner(spec: BackendSpec): TokenSigner | undefined;
}

export function openSignIn(config: ResolvedConfig): SignIn {
  // Backends that sign in add their tokens to what is redacted as they are read or renewed.
  const signInRedactor = config.backends.some(signsIn) ? new GrowingRedactor(config.secrets) : undefined;
  const credentials = signInRedactor && openCredentials(config);
  return {
    redact: signInRedactor?.redact ?? redactor(config.secrets),
    ...(credentials ? { credentials } : {}),
    tokenSigner: (spec) =>
      signsIn(spec) && credentials && signInRedactor
        ? createSigner(spec, config, credentials, (value) => signInRedactor.add(value, `[redacted OAuth token of ${spec.namespace}]`))
        : undefined,
  };
}
