/** The benchmark suites: data only, so the CLI's command table can list them without loading the benchmarks. */
export const SUITES = ["search", "code", "exec", "http", "tokens", "scripts", "soak"] as const;
export type Suite = (typeof SUITES)[number];
