/**
 * The `metatools.audit` section: the record every run_tool call leaves
 * (src/audit/), its schema and its resolved form (the defaults are in
 * defaults.ts). Records go to a JSONL file per config in the state folder,
 * or to the shared store when it is Redis.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import * as z from "zod";
import { ConfigError } from "../util/errors.js";
import { bytesWords, DEFAULTS } from "./defaults.js";
import type { Filled, Simplify } from "./fill.js";

export const auditSectionSchema = z
  .object({
    enabled: z
      .boolean()
      .optional()
      .describe(
        `Record every run_tool call: time, caller (principal), profile, tool id, a digest of the arguments (never their values), approval, outcome and duration. Default ${DEFAULTS.audit.enabled}.`,
      ),
    to: z
      .enum(["file", "store"])
      .optional()
      .describe(
        "Where records go: `file` (JSON lines, rotated by size) or `store` (metatools.store, which must be Redis: one capped list every replica adds to). Default: `store` when store.url is redis:// or rediss://, else `file`.",
      ),
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The JSON-lines file, relative to the config file. Default: one per config file in the state folder, $XDG_STATE_HOME/metatools/audit/ (else ~/.local/state/metatools/audit/).",
      ),
    maxBytes: z
      .number()
      .int()
      .min(4096)
      .optional()
      .describe(`A write that would take the file past this size rotates it first (to \`<file>.1\`). Default ${bytesWords(DEFAULTS.audit.maxBytes)}.`),
    keep: z
      .number()
      .int()
      .min(0)
      .max(100)
      .optional()
      .describe(`Rotated files kept, \`<file>.1\` the newest; older ones are removed. Default ${DEFAULTS.audit.keep}.`),
    maxRecords: z
      .number()
      .int()
      .min(100)
      .optional()
      .describe(`With \`to: store\`: the records the store keeps (a few hundred bytes each); the oldest go first. Default ${DEFAULTS.audit.maxRecords}.`),
  })
  .strict()
  .optional()
  .describe("The audit trail of run_tool calls (`metatools audit` shows it; docs/security.md#audit-trail).");

export type AuditSection = z.infer<typeof auditSectionSchema>;

type AuditFilled = Filled<NonNullable<AuditSection>, typeof DEFAULTS.audit>;
/** The fields that say where records go, and which of them each place uses; any other field is common to both. */
type AuditPlace = "enabled" | "to" | "file" | "maxBytes" | "keep" | "maxRecords";

/** Where records go, every default applied: a file (absolute path) rotated by size, or the shared Redis store. */
export type AuditConfig = Simplify<
  Omit<AuditFilled, AuditPlace> & ({ to: "file"; file: string; maxBytes: number; keep: number } | { to: "store"; maxRecords: number })
>;

/** metatools' folder under the user's state folder ($XDG_STATE_HOME, else ~/.local/state): what outlives a run but is no cache. */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "metatools");
}

/** The default audit file of a config file: one per config (as the learning file is), `default.jsonl` with none. */
export function defaultAuditFile(configFile: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const name = configFile ? createHash("sha256").update(configFile).digest("hex").slice(0, 16) : "default";
  return join(stateHome(env), "audit", `${name}.jsonl`);
}

/** `{audit}` for the resolved config, or nothing when it is off; `to: store` needs a Redis store. */
export function resolveAudit(
  section: AuditFilled,
  storeUrl: string,
  where: { file?: string; baseDir: string; env?: NodeJS.ProcessEnv },
): { audit?: AuditConfig } {
  const { enabled, to: given, file: path, maxBytes, keep, maxRecords, ...common } = section;
  if (!enabled) return {};
  const redis = /^rediss?:\/\//.test(storeUrl);
  const to = given ?? (redis ? "store" : "file");
  if (to === "store") {
    if (!redis)
      throw new ConfigError(
        where.file ?? "config",
        "metatools.audit.to",
        '"store" keeps the audit trail in metatools.store, which must be Redis (redis://… or rediss://…); use "file", or set metatools.store.url',
      );
    return { audit: { ...common, to, maxRecords } };
  }
  const file = path ? resolve(where.baseDir, path) : defaultAuditFile(where.file, where.env ?? process.env);
  return { audit: { ...common, to, file, maxBytes, keep } };
}
