/**
 * What is known of each backend before it starts, from the snapshot file
 * (snapshot.ts): its last tool list, served at once, and its last failure,
 * remembered so a CLI command does not start a backend that failed a
 * moment ago. And how the manager's outcomes feed that memory.
 */
import type { BackendSpec, ResolvedConfig } from "../config/resolved.js";
import type { UpstreamTool } from "../model/tool.js";
import { connects } from "../model/transport-kinds.js";
import type { Logger } from "../util/log.js";
import type { BackendManager, BackendState } from "./manager.js";
import type { ToolSnapshot } from "./snapshot.js";
import { shownStatus } from "./status.js";

export interface KnownOptions {
  /** The backends this command starts: undefined, all (`serve`, doctor, `--refresh`); otherwise those named, and any with no snapshot that did not fail a moment ago. */
  only?: readonly string[];
  /** Marks the snapshot's tools as the snapshot's before they are served (security/gate.ts). */
  claim(tools: readonly UpstreamTool[], hashes: readonly (string | undefined)[]): void;
  logger: Logger;
}

/**
 * Serves every backend's snapshot tools, and marks the ones a command
 * leaves alone because they failed within `timeouts.failureMemoryMs`.
 * Returns what to start: undefined for all, else the namespaces.
 */
export function applyKnown(config: ResolvedConfig, snapshot: ToolSnapshot, backends: BackendManager, options: KnownOptions): string[] | undefined {
  const start: string[] = [];
  for (const spec of config.backends) {
    // A catalog is a file read at once: always loaded, never snapshotted.
    const known = connects(spec) ? snapshot.get(spec) : undefined;
    if (known?.hashes) options.claim(known.tools, known.hashes);
    if (known) backends.preload(spec.namespace, known.tools, known.info);
    if (!options.only || known) continue;
    // A catalog has no process to spare: it is read whenever the command starts anything.
    if (!connects(spec)) {
      start.push(spec.namespace);
      continue;
    }
    const failure = snapshot.failure(spec, config.timeouts.failureMemoryMs);
    if (!failure) {
      start.push(spec.namespace);
      continue;
    }
    const retryAt = new Date(Date.parse(failure.at) + config.timeouts.failureMemoryMs).toISOString();
    backends.remembered(spec.namespace, { error: failure.error, fix: failure.fix, failedAt: failure.at, retryAt });
    // Said at info level: the command's own output lists it (search's `unavailable`), once.
    options.logger.info(`${spec.namespace}: not started: it failed at ${failure.at}, left alone until ${retryAt} (--refresh tries it now): ${failure.error}`);
  }
  // Entries that cannot be used as written "start" at once, failing with their fix: nothing is spawned.
  return options.only && [...options.only, ...start, ...config.unresolved.map((u) => u.namespace)];
}

/** The manager's `onSettled`: a failed start is remembered with why, a start that worked forgets it. */
export function rememberFailures(specs: readonly BackendSpec[], snapshot: ToolSnapshot): (state: BackendState) => void {
  const byNamespace = new Map(specs.map((spec) => [spec.namespace, spec]));
  return (state) => {
    const spec = byNamespace.get(state.namespace);
    if (!spec || !connects(spec)) return;
    if (state.status === "ready") snapshot.setFailure(spec, undefined);
    // Failed, and retried by this process ("reconnecting" between tries): remembered for the next ones.
    else if (shownStatus(state) === "failed")
      snapshot.setFailure(spec, { error: state.error ?? `${state.namespace}: failed to start`, ...(state.fix ? { fix: state.fix } : {}) });
  };
}
