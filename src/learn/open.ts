/**
 * Search learning as the app holds it: the learner over its store, and the
 * seed file (`metatools.learn.seed`) imported when the server starts.
 */
import type { ResolvedConfig } from "../config/resolved.js";
import type { KeyValue } from "../store/kv.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { importSeed } from "./file.js";
import { Learner } from "./learner.js";
import { LearnedStore } from "./store.js";

export interface Learning {
  learner: Learner;
  /** Imports the seed file, if any and not yet imported; never rejects (a bad seed is logged, and search goes on). */
  start(): Promise<void>;
}

export function openLearning(config: NonNullable<ResolvedConfig["learn"]>, kv: KeyValue, logger: Logger, redact: (text: string) => string): Learning {
  const learner = new Learner(
    new LearnedStore(kv, { halfLifeMs: config.halfLifeMs, shareAfterPrincipals: config.shareAfterPrincipals }),
    config,
    logger,
    Date.now,
    redact,
  );
  return {
    learner,
    start: async () => {
      if (!config.seed) return;
      try {
        const terms = await importSeed(learner.store, config.seed, Date.now());
        if (terms !== undefined) logger.info(`learn: imported ${terms} terms from ${config.seed}`);
      } catch (error) {
        logger.error(`learn: the seed ${config.seed} was not imported: ${errorMessage(error)}`);
      }
    },
  };
}
