/** The ranking modes `metatools eval` measures: data only, so the CLI's command table can list them without loading the evaluator. */
export const EVAL_MODES = ["bm25", "semantic", "hybrid"] as const;
export type EvalMode = (typeof EVAL_MODES)[number];
