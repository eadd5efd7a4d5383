/**
 * Search learning as the app holds it: where it is kept (`openLearnedStore`),
 * the learner over it, and the seed file (`metatools.learn.seed`) imported
 * when the server starts.
 */
import { cacheHome } from "../config/env.js";
import type { LearnConfig, ResolvedConfig } from "../config/resolved.js";
import type { KeyValue } from "../store/kv.js";
import { openConfiguredStore } from "../store/open.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { importSeed } from "./file.js";
import { LearnedFileStore, learningFile } from "./file-store.js";
import { Learner } from "./learner.js";
import { LearnedStore } from "./store.js";

/**
 * Where what search learns is kept, by the config: in `metatools.store` when
 * it is Redis or SQLite (shared, and kept by the store); with the memory
 * store, in a learning file in the cache folder (one per config file,
 * `learn.persist`); in this process alone when there is no config file or
 * `learn.persist` is false (`file` undefined: `metatools learn` cannot reach it).
 */
export function learnedStorePlace(config: ResolvedConfig): { kind: "store" | "file" | "process"; file?: string } {
  if (!config.store.url.startsWith("memory")) return { kind: "store" };
  if (!config.file || !config.learn?.persist) return { kind: "process" };
  return { kind: "file", file: learningFile(cacheHome(), config.file) };
}

/** The key-value store learning is kept in (see learnedStorePlace); `warn` hears of a learning file not valid or not written. */
export function openLearnedKv(config: ResolvedConfig, learn: LearnConfig, warn: (message: string) => void): KeyValue {
  const place = learnedStorePlace(config);
  if (place.kind !== "file") return openConfiguredStore(config.store, "learn");
  return new LearnedFileStore(place.file!, { settings: { halfLifeMs: learn.halfLifeMs }, warn });
}

export function learnedStore(kv: KeyValue, learn: LearnConfig): LearnedStore {
  return new LearnedStore(kv, { halfLifeMs: learn.halfLifeMs, shareAfterPrincipals: learn.shareAfterPrincipals });
}

export interface Learning {
  learner: Learner;
  /** Reads the learning file and imports the seed file, if any and not yet imported; never rejects (a bad file or seed is logged, and search goes on). */
  start(): Promise<void>;
  /** Writes a learning file's pending changes now (first thing at shutdown, before slower parts close). */
  flush(): void;
  close(): Promise<void>;
}

export function openLearning(config: ResolvedConfig, learn: LearnConfig, logger: Logger, redact: (text: string) => string): Learning {
  const kv = openLearnedKv(config, learn, (message) => logger.warn(message));
  const learner = new Learner(learnedStore(kv, learn), learn, logger, Date.now, redact);
  const place = learnedStorePlace(config);
  return {
    learner,
    start: async () => {
      if (kv instanceof LearnedFileStore) {
        kv.load(true);
        logger.info(`learn: what search learns is kept in ${kv.file} (metatools learn --show lists it)`);
      } else if (place.kind === "process") {
        const why = config.file ? "metatools.learn.persist is false" : "no config file";
        logger.info(`learn: what search learns is kept in this process only (${why}): it is forgotten when the server stops`);
      }
      if (!learn.seed) return;
      try {
        const terms = await importSeed(learner.store, learn.seed, Date.now());
        if (terms !== undefined) logger.info(`learn: imported ${terms} terms from ${learn.seed}`);
      } catch (error) {
        logger.error(`learn: the seed ${learn.seed} was not imported: ${errorMessage(error)}`);
      }
    },
    flush: () => {
      if (kv instanceof LearnedFileStore) kv.flush();
    },
    close: () => kv.close(),
  };
}
