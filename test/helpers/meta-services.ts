/**
 * The meta-tools' services (src/meta/services.ts) standing in for a running
 * app, over one or a few tool records: no backend is started, no index
 * built. Each test overrides what it exercises (the executor's `run`, the
 * redactor, the audit log).
 */
import type { RunOutcome } from "../../src/exec/executor.js";
import type { MetaServices } from "../../src/meta/services.js";
import type { ToolRecord } from "../../src/model/tool.js";
import { SpanNotes } from "../../src/observe/telemetry.js";
import { Bm25Ranker } from "../../src/search/bm25.js";

export interface StandInOptions {
  records: readonly ToolRecord[];
  /** What run_tool's executor answers; by default, that the tool is unknown. */
  run?: () => Promise<RunOutcome>;
  redact?: (text: string) => string;
  audit?: MetaServices["audit"];
}

export function standInServices(options: StandInOptions): MetaServices {
  const records = new Map(options.records.map((r) => [r.id, r]));
  const namespaces = [...new Set(options.records.map((r) => r.namespace))];
  return {
    config: { search: { defaultLimit: 5, maxLimit: 50, mode: "bm25" }, budgets: { inlineBytes: 4000, mediaBytes: 1 << 20 } },
    registry: {
      get: (id) => records.get(id),
      namespaces: () => namespaces.map((namespace) => ({ namespace, count: options.records.filter((r) => r.namespace === namespace).length })),
      namespaceRecords: (ns) => [...records.values()].filter((r) => r.namespace === ns),
      quarantineOf: () => undefined,
    },
    search: { search: () => Promise.reject(new Error("not in this test")), bm25: new Bm25Ranker(), nearTerms: () => [] },
    executor: { run: options.run ?? (async () => ({ kind: "unknown_tool", id: "?" })), accepts: () => false },
    backends: { state: () => undefined, states: () => [], whenReady: async () => {}, callTimeoutMs: () => undefined },
    outputs: {
      put: async () => ({ handle: "@out_unused000", room: 1 << 20, ownerBytes: 2 << 20 }),
      get: async () => ({ kind: "missing" }),
      ttlMs: 60_000,
      maxBytes: 1 << 20,
    },
    resources: { links: undefined as never },
    telemetry: { measure: (_op, _name, attributes, work) => work(new SpanNotes(attributes)) },
    redact: options.redact ?? ((text) => text),
    ...(options.audit ? { audit: options.audit } : {}),
  };
}
