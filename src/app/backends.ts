/** The backend manager over every backend: configured, unresolved (catalog names with no server yet), built-in and extra. */
import { createBackend } from "../backends/factory.js";
import { BackendManager, type BackendState } from "../backends/manager.js";
import type { Reaper } from "../backends/reaper.js";
import type { Backend } from "../backends/types.js";
import { UnconfiguredBackend } from "../backends/unconfigured.js";
import type { ResolvedConfig } from "../config/resolved.js";
import type { ClientFeatures } from "../model/peer.js";
import type { Logger } from "../util/log.js";
import type { Redact } from "../util/redact.js";
import type { SignIn } from "./sign-in.js";

export interface BackendParts {
  redact: Redact;
  signIn: SignIn;
  /** Read by backends when they connect, so it may be filled in until `start`. */
  clientFeatures: ClientFeatures;
  /** Stops stdio backends' process groups if this process dies without closing them. */
  reaper: Reaper;
  /** Built-ins and extras, run with the configured timeouts. */
  others: Backend[];
  logger: Logger;
  backoffMs?: number[];
  breakerMs?: number;
  /** Each backend's first connection or failure. */
  onSettled: (state: BackendState) => void;
}

export function manageBackends(config: ResolvedConfig, parts: BackendParts): BackendManager {
  const { redact, signIn, clientFeatures, reaper } = parts;
  const timeouts = { connectTimeoutMs: config.timeouts.connectMs, callTimeoutMs: config.timeouts.callMs };
  return new BackendManager(
    [
      ...config.backends.map((spec) => ({ backend: createBackend(spec, redact, signIn.tokenSigner(spec), clientFeatures, reaper), spec })),
      ...config.unresolved.map((server) => ({ backend: new UnconfiguredBackend(server), spec: { namespace: server.namespace, ...timeouts } })),
      ...parts.others.map((backend) => ({ backend, spec: { namespace: backend.namespace, ...timeouts } })),
    ],
    { logger: parts.logger, backoffMs: parts.backoffMs, breakerMs: parts.breakerMs, redact, onSettled: parts.onSettled },
  );
}
