/**
 * The config's `metatools.scripts` section: whether agents may run
 * programs (`metatools:run_program`) and the limits every run is held to,
 * and the lower limits a profile may set for its callers (`profiles.NAME.scripts`).
 */
import * as z from "zod";
import { bytesWords, DEFAULTS } from "./defaults.js";

const D = DEFAULTS.scripts;

/** The limits a run is held to; a profile may lower each, never raise it. */
const limitFields = {
  cpuMs: z
    .number()
    .int()
    .min(10)
    .max(600_000)
    .optional()
    .describe(`CPU time a program may run in the sandbox, in ms; waiting for its tools costs none. Past it the program is stopped. Default ${D.cpuMs}.`),
  maxCalls: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .optional()
    .describe(`Calls of tools.call, tools.search and tools.describe one run may make; past it each further call fails in the program. Default ${D.maxCalls}.`),
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe(
      `A run's calls answered at once (Promise.all); the rest wait their turn. Each also counts in its caller's serve.callsPerCaller. Default ${D.concurrency}.`,
    ),
  logLines: z.number().int().min(0).max(100_000).optional().describe(`console.log lines a run keeps; the rest are counted. Default ${D.logLines}.`),
  returnChars: z
    .number()
    .int()
    .min(1000)
    .optional()
    .describe(
      `Characters of a program's return value as JSON; past it the run fails saying so. The reply then goes through the budget as any result. Default ${D.returnChars}.`,
    ),
  resultBytes: z
    .number()
    .int()
    .min(1024)
    .optional()
    .describe(
      `Bytes of JSON of one call's result a program may read (whole: no handle); past it that call fails saying so. Default ${bytesWords(D.resultBytes)}.`,
    ),
};

export const scriptsSectionSchema = z
  .object({
    enabled: z
      .boolean()
      .optional()
      .describe(`Offer metatools:run_program, which runs an agent's program of many tool calls in one call. Default ${D.enabled}.`),
    ...limitFields,
    memoryMb: z
      .number()
      .int()
      .min(16)
      .max(1024)
      .optional()
      .describe(`WebAssembly memory of one sandbox worker, in MiB: a program past it is stopped. Default ${D.memoryMb}.`),
    workers: z
      .number()
      .int()
      .min(1)
      .max(16)
      .optional()
      .describe(`Programs this server runs at once, each in a worker thread of its own; more wait. Default ${D.workers}.`),
    perCaller: z
      .number()
      .int()
      .min(1)
      .max(16)
      .optional()
      .describe(`Programs one caller runs at once; its next waits for one of its own to end, so one caller never holds every worker. Default ${D.perCaller}.`),
  })
  .strict()
  .optional()
  .describe("Programs: many tool calls in one run_tool call, in a sandbox (docs/scripts.md).");

/** A profile's word on programs: false offers none to its callers; limits lower the server's for them. */
export const profileScriptsSchema = z
  .union([z.literal(false), z.object(limitFields).strict()])
  .optional()
  .describe(
    "false: this profile's callers may not run programs (metatools:run_program is not theirs). An object lowers the limits of metatools.scripts for them (a higher value does not raise them).",
  );
