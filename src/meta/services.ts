/**
 * What the meta-tools use of the app, and nothing more: the search, reads
 * of the registry and of backends' states, the executor, stored outputs and
 * links, and the few settings they read. The app (`Metatools`) is one; a
 * test can hand a meta-tool stand-ins instead of starting backends.
 */
import type { BackendManager } from "../backends/manager.js";
import type { ResolvedConfig } from "../config/resolved.js";
import type { OutputStore } from "../disclosure/outputs.js";
import type { Executor } from "../exec/executor.js";
import type { ResourceReader } from "../exec/resources.js";
import type { Telemetry } from "../observe/telemetry.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { Bm25Ranker } from "../search/bm25.js";
import type { SearchEngine } from "../search/engine.js";
import type { Profile, Profiles } from "../security/profiles.js";
import type { Redact } from "../util/redact.js";
import type { Learner } from "../learn/learner.js";
import type { AuditLog } from "../audit/log.js";
import type { CallerShares } from "./shares.js";
import type { SessionNotices } from "./notices.js";

export interface MetaServices {
  config: MetaSettings;
  registry: Pick<ToolRegistry, "get" | "namespaces" | "namespaceRecords" | "quarantineOf">;
  search: { search: SearchEngine["search"]; bm25: Pick<Bm25Ranker, "rank" | "rankRelaxed">; nearTerms: SearchEngine["nearTerms"] };
  executor: Pick<Executor, "run" | "accepts">;
  backends: Pick<BackendManager, "state" | "states" | "whenReady" | "callTimeoutMs">;
  /** Oversized results, kept under handles. */
  outputs: OutputStore;
  /** Where a backend's resource links are handed on from. */
  resources: Pick<ResourceReader, "links">;
  telemetry: Pick<Telemetry, "measure">;
  /** Replaces known secrets in text about to be shown. */
  redact: Redact;
  /** The config's profiles; undefined: every caller sees every tool. */
  profiles?: Pick<Profiles, "get">;
  /** The caller's profile (src/meta/scoped.ts made these services for it); undefined: every tool, no approvals. */
  profile?: Profile;
  /** Told what agents search for and what they then run, to learn from; undefined when learning is off. */
  learner?: Pick<Learner, "searched" | "ran">;
  /** Where each run_tool call leaves its record (src/audit/); undefined when the audit trail is off. */
  audit?: Pick<AuditLog, "record">;
  /** Each caller's share of calls in flight and questions waiting (shares.ts); undefined: unbounded (a test's stand-ins). */
  shares?: Pick<CallerShares, "call" | "peer">;
  /** What each session was told once (notices.ts): shared by a session's instructions and its calls; undefined: the dispatcher keeps its own. */
  notices?: SessionNotices;
}

/** The settings the meta-tools read: search's limits and mode, the byte budgets, and the config file a sign-in command names. */
export interface MetaSettings {
  search: Pick<ResolvedConfig["search"], "defaultLimit" | "maxLimit" | "mode">;
  budgets: Pick<ResolvedConfig["budgets"], "inlineBytes" | "mediaBytes">;
  file?: ResolvedConfig["file"];
  /** What serve tells clients of the three tools; unset: the defaults. */
  serve?: ResolvedConfig["serve"];
  /** The limits of programs (metatools:run_program); unset: the defaults. */
  scripts?: ResolvedConfig["scripts"];
}
