/**
 * The replay protocol (`metatools eval --replay`): what search learns from
 * use, measured on a retrieval set. The even-numbered queries are replayed
 * as history, each a session that searches and then runs the labelled tool
 * successfully (or, with `noise`, that share of them a wrong tool); the
 * odd-numbered ones are measured, once before the history and once after,
 * through the same learner and search engine a server uses.
 */
import type { Metatools } from "../app.js";
import { LOCAL_PRINCIPAL } from "../security/principal.js";
import { MetatoolsError } from "../util/errors.js";
import { seededRandom } from "../util/random.js";
import type { EvalQuery } from "./dataset.js";
import type { Metrics } from "./metrics.js";
import { NAMESPACE, rankAll, withDataset, type EvalMode, type EvalOptions } from "./run.js";

export interface ReplayOptions extends EvalOptions {
  /** The share of replayed runs that go to a wrong tool (0–1). Default 0. */
  noise?: number;
}

export interface ReplayResult {
  /** The measured (odd-numbered) queries with no history. */
  without: Metrics;
  /** The same queries after the history was replayed. */
  with: Metrics;
  /** Queries replayed as history, and how many of their runs went to a wrong tool. */
  replayed: number;
  wrong: number;
}

export async function replayDataset(dir: string, modes: readonly EvalMode[], options: ReplayOptions = {}): Promise<Partial<Record<EvalMode, ReplayResult>>> {
  const noise = options.noise ?? 0;
  if (!(noise >= 0 && noise <= 1)) throw new MetatoolsError("invalid_option", `the replay noise is a share between 0 and 1, got ${noise}`);
  return withDataset(dir, modes, options, async (app, queries) => {
    const learner = app.learner;
    if (!learner) throw new MetatoolsError("learning_off", "the replay needs search learning, and this config turns it off (metatools.learn: false)");
    if (!app.registry.namespaceRecords(NAMESPACE).length)
      throw new MetatoolsError("dataset_invalid", `--replay reads a tool list (tools.jsonl); ${dir} is a set of servers`);
    const history = queries.filter((_, i) => i % 2 === 0);
    const measured = queries.filter((_, i) => i % 2 === 1);
    const out: Partial<Record<EvalMode, ReplayResult>> = {};
    for (const mode of modes) {
      await learner.store.reset();
      const without = await rankAll(app, measured, mode, options.onProgress);
      const wrong = await replay(app, history, noise, (stage, done, total) => options.onProgress?.(stage, done, total));
      out[mode] = { without, with: await rankAll(app, measured, mode, options.onProgress), replayed: history.length, wrong };
    }
    await learner.store.reset();
    return out;
  });
}

/** Each history query as a session: a search, then a successful run of its labelled tool, or of a wrong one for a `noise` share. */
async function replay(app: Metatools, history: readonly EvalQuery[], noise: number, progress: EvalOptions["onProgress"]): Promise<number> {
  const learner = app.learner!;
  const tools = app.registry.namespaceRecords(NAMESPACE).map((r) => r.id);
  const random = seededRandom(20_260_101);
  let wrong = 0;
  for (const [i, q] of history.entries()) {
    if (i % 100 === 0) progress?.("replaying", i, history.length);
    const right = `${NAMESPACE}:${q.relevant[0]}`;
    let tool = right;
    if (random() < noise) {
      const others = tools.filter((id) => !q.relevant.includes(id.slice(NAMESPACE.length + 1)));
      tool = others[Math.floor(random() * others.length)] ?? right;
      if (tool !== right) wrong++;
    }
    const session = `replay:${i}`;
    // As the local user, whom the measured searches are made for: what one principal teaches ranks for it (src/learn/shared.ts).
    await learner.searched(session, LOCAL_PRINCIPAL, q.query, []);
    await learner.ran(session, LOCAL_PRINCIPAL, tool, true);
  }
  progress?.("replaying", history.length, history.length);
  return wrong;
}
