/** `/healthz` (the process is up) and `/readyz` (backends settled, semantic index built). */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Metatools } from "../app.js";
import { scopedFor } from "../meta/scoped.js";
import type { BearerAuth } from "./guard.js";
import { json } from "./reply.js";

/** Live sessions and memory. `?gc` collects first, only in a process started with --expose-gc (the benchmark): live memory, not garbage. */
export function health(res: ServerResponse, sessions: number, target: URL | undefined): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (target?.searchParams.has("gc") && gc) gc();
  const memory = process.memoryUsage();
  json(res, 200, {
    status: "ok",
    sessions,
    rssMb: Math.round(memory.rss / 2 ** 20),
    heapMb: Math.round(memory.heapUsed / 2 ** 20),
  });
}

/**
 * Ready once every backend has connected or failed (`started`) and the
 * semantic index is built, while not `closing`. The backends' names and
 * states go to whoever may call /mcp; their error texts never (they can
 * hold command lines and URLs): those are in the log.
 */
export function readiness(app: Metatools, auth: BearerAuth, phase: { started: boolean; closing: boolean }, req: IncomingMessage, res: ServerResponse): void {
  const indexing = app.search.semantic?.indexing ?? [];
  const ready = phase.started && !phase.closing && indexing.length === 0;
  const caller = auth.enabled ? auth.check(req.headers.authorization) : undefined;
  if (caller && "status" in caller) return json(res, ready ? 200 : 503, { ready });
  // A token with a profile hears only of the backends its profile shows.
  const seen = scopedFor(app, caller?.profile).backends;
  const backends = seen.states().map(({ namespace, status, toolCount }) => ({ namespace, status, tools: toolCount }));
  const shown = new Set(backends.map((b) => b.namespace));
  json(res, ready ? 200 : 503, { ready, started: phase.started, indexing: indexing.filter((namespace) => shown.has(namespace)), backends });
}
