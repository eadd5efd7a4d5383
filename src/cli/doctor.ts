/**
 * What `metatools doctor` finds: the config, each backend (status, tools,
 * connect time, quarantined tools), servers configured twice, the store,
 * the embedder and the lock file, with every problem and what to do about
 * it. Collected from a started app, so it sees exactly what `serve` would.
 */
import type { Metatools, StoreHealth } from "../app.js";
import { shownStatus } from "../backends/status.js";
import { backendKey } from "../config/same-server.js";
import type { BackendSpec } from "../config/resolved.js";
import { maskUrl } from "../store/open.js";
import { loginCommand } from "../auth/open.js";
import { errorMessage } from "../util/errors.js";
import type { TransportKind } from "../model/transport-kinds.js";
import { embedderStatus, probeService, type DoctorEmbedder } from "./doctor-embedder.js";

export type { DoctorEmbedder } from "./doctor-embedder.js";

export interface DoctorBackend {
  namespace: string;
  kind: TransportKind;
  /** The manager's status; "quarantined" when ready but some of its tools are held until a person approves them. */
  status: string;
  /** Tools agents can use now. */
  tools: number;
  quarantined: number;
  /** How long its last connect attempt took (BackendState.connectedInMs); named so in `doctor --json`, which is public. */
  connectMs?: number;
  /** The MCP revision the backend speaks with metatools (2025-11-25, 2026-07-28), once connected. */
  protocolVersion?: string;
  /** The server's name and version when ready; the error when not. */
  detail: string;
}

export interface DoctorLearning {
  /** off: `learn: false` in the config. */
  status: "on" | "off" | "failed";
  /** Terms learned so far, in the store (a memory store: this process's, so 0 for a command). */
  terms?: number;
  /** Where it is kept: the learning file, the store's URL (password masked), or `memory` (this process only). */
  where?: string;
  error?: string;
}

export interface DoctorProblem {
  subject: string;
  problem: string;
  /** What to do about it. */
  fix: string;
}

export interface DoctorReport {
  config: { file?: string; backends: number; codeRoot?: string };
  backends: DoctorBackend[];
  store: StoreHealth;
  embedder: DoctorEmbedder;
  learning: DoctorLearning;
  lockFile?: { file: string; pinned: number };
  problems: DoctorProblem[];
}

export async function diagnose(app: Metatools): Promise<DoctorReport> {
  const { config } = app;
  const held = app.registry.quarantined();
  const problems: DoctorProblem[] = [];
  const backends = app.backends.states().map((state): DoctorBackend => {
    const quarantined = held.filter((q) => q.namespace === state.namespace);
    const tools = app.registry.namespaceRecords(state.namespace).length;
    const ready = state.status === "ready";
    const status = ready && quarantined.length ? "quarantined" : shownStatus(state);
    const error = state.error?.startsWith(`${state.namespace}: `) ? state.error.slice(state.namespace.length + 2) : state.error;
    if (state.status === "needs_login") {
      problems.push({
        subject: state.namespace,
        problem: `needs_login: ${(error ?? "the server asks for a sign-in").replace(/: run `.*$/, "")}`,
        fix: `${loginCommand(state.namespace, config)} (a running metatools picks the sign-in up without a restart)`,
      });
    } else if (state.status === "needs_config") {
      // Never started: the entry cannot be used as written. The others serve meanwhile.
      problems.push({
        subject: state.namespace,
        problem: `needs_config: ${error ?? "its entry cannot be used"}`,
        fix: state.fix ?? "correct its entry in the config",
      });
    } else if (!ready && state.status !== "connecting") {
      const spec = config.backends.find((b) => b.namespace === state.namespace);
      // A failure that says what a person must do (a program not on PATH) says it; others are best seen by hand.
      const run =
        state.fix ??
        (!spec
          ? "this backend is built in: run with --log-level debug and report the error"
          : "command" in spec
            ? `run it by hand to see why: ${[spec.command, ...spec.args].join(" ")}`
            : "check the URL, the network and its headers");
      problems.push({
        subject: state.namespace,
        problem: `${status}: ${error ?? "no answer"}`,
        fix: `${run}${state.retryAt && !state.fix ? `; a running metatools retries ${retryIn(state.retryAt)}` : ""}`,
      });
    }
    if (quarantined.length) {
      problems.push({
        subject: state.namespace,
        problem: `${quarantined.length} tool${quarantined.length === 1 ? "" : "s"} quarantined: ${quarantined.map((q) => `${q.id} (${q.reason})`).join("; ")}`,
        fix: `review each with \`metatools approve --show ID\` (its definition, what changed, what the scanner found); if you trust them, \`metatools approve ${quarantined.map((q) => q.id).join(" ")}\``,
      });
    }
    const server = state.info ? `${state.info.name}${state.info.version ? ` ${state.info.version}` : ""}` : "";
    return {
      namespace: state.namespace,
      kind: state.kind,
      status,
      tools,
      quarantined: quarantined.length,
      ...(state.connectedInMs === undefined ? {} : { connectMs: state.connectedInMs }),
      ...(state.info?.protocolVersion ? { protocolVersion: state.info.protocolVersion } : {}),
      detail: ready
        ? [server, quarantined.length ? `${quarantined.map((q) => q.name).join(", ")} held until approved` : ""].filter(Boolean).join("; ")
        : (error ?? ""),
    };
  });
  // Turned off in the config: listed, so a person sees the whole file, and never a problem.
  for (const off of config.disabled ?? [])
    backends.push({ namespace: off.namespace, kind: off.kind, status: "disabled", tools: 0, quarantined: 0, detail: '"disabled": true in the config' });

  problems.push(...sameServers(config.backends, config.file));
  // A catalog's word that would make a tool less guarded, not taken on its backend's claim of a name alone.
  for (const record of app.registry.records())
    if (record.catalogUnvouched)
      problems.push({
        subject: record.id,
        problem: `its catalog entry says ${record.catalogUnvouched.join(" and ")}, which is not applied: it was matched on what the backend claims (its server name, its tool name) and nothing vouches for it`,
        fix: `if the backend is the server that entry was written for, name it in the config ("serverName" in mcpServers.${record.namespace}), or set the entry's written_for to the tool's hash (metatools describe ${record.id} --detail full)`,
      });
  // Catalog text written for another definition of its tool: it may say what the tool no longer does.
  for (const record of app.registry.records())
    if (record.catalogDrift)
      problems.push({
        subject: record.id,
        problem: `its catalog entry was written for ${record.catalogDrift.writtenFor}, and the tool is now ${record.catalogDrift.now}: the entry's summary, notes and examples may be out of date`,
        fix: `check the entry against the tool (metatools describe ${record.id} --detail full), then set its written_for to ${record.catalogDrift.now}`,
      });

  const store = await app.checkStore();
  if (!store.ok)
    problems.push({
      subject: "store",
      problem: store.error ?? "unreachable",
      fix: `start it, or check metatools.store.url (${maskUrl(config.store.url)}); until then results are not cached and large outputs cannot be kept`,
    });

  const embedder = await probeService(app, embedderStatus(app));
  if (embedder.status === "failed")
    problems.push({
      subject: "embedder",
      problem: embedder.error ?? "failed",
      fix: app.search.semantic?.fallback
        ? "start the embedding service, or fix metatools.search.embedder (see docs/retrieval.md); meanwhile the built-in embedder ranks meaning"
        : "fix metatools.search.embedder (see docs/retrieval.md); search runs on BM25 alone meanwhile",
    });
  if (embedder.queryError)
    problems.push({
      subject: "embedder",
      problem: `the embedding service did not embed a query just now: ${embedder.queryError}`,
      fix: "check that the service runs and answers within metatools.search.embedder.queryTimeoutMs; meanwhile each search ranks meaning with the built-in embedder and says so",
    });
  for (const failure of embedder.failures ?? [])
    problems.push({
      subject: "embedder",
      problem: `the tools of ${failure.namespace} could not be embedded: ${failure.why}`,
      fix: "they rank by BM25 alone until a retry succeeds (every few minutes); check the embedding service",
    });

  const learning: DoctorLearning = !app.learner
    ? { status: "off" }
    : await app.learner.store.size().then(
        ({ terms }) => ({ status: "on" as const, terms, where: app.learner!.store.where }),
        (error: unknown) => ({ status: "failed" as const, error: errorMessage(error) }),
      );

  const lock = app.gate.lock;
  return {
    config: { file: config.file, backends: config.backends.length + config.unresolved.length, ...(config.code ? { codeRoot: config.code.root } : {}) },
    backends,
    store,
    embedder,
    learning,
    ...(lock ? { lockFile: { file: lock.file, pinned: lock.size } } : {}),
    problems,
  };
}

/** Backends configured twice under different names (config/same-server.ts): each adds the same tools, so search lists every one twice. */
function sameServers(specs: readonly BackendSpec[], file: string | undefined): DoctorProblem[] {
  const names = new Map<string, string[]>();
  for (const spec of specs) {
    const key = backendKey(spec);
    names.set(key, [...(names.get(key) ?? []), spec.namespace]);
  }
  return [...names.values()]
    .filter((group) => group.length > 1)
    .map((group) => ({
      // Named by the later entries: usually the copy (init numbers a clashing name, github-2).
      subject: group.slice(1).join(", "),
      problem: `${group.slice(0, -1).join(", ")} and ${group.at(-1)} are the same server: duplicate tools in search`,
      fix: `remove one from "mcpServers"${file ? ` in ${file}` : ""}`,
    }));
}

function retryIn(at: string): string {
  const seconds = Math.max(0, (Date.parse(at) - Date.now()) / 1000);
  return seconds < 90 ? `in ${Math.ceil(seconds)} s` : `at ${at}`;
}
