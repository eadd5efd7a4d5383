/**
 * The config's `metatools.serve` section: what `metatools serve` tells the
 * clients it serves (stdio and HTTP), and each caller's share of what
 * serving holds for them. A caller is a bearer token (or the stdio client,
 * or every caller of an HTTP server without tokens), whatever path or
 * profile it comes by, counted across replicas that share a Redis store.
 */
import * as z from "zod";
import { bytesWords, DEFAULTS, msWords } from "./defaults.js";

export const serveSectionSchema = z
  .object({
    alwaysLoad: z
      .boolean()
      .optional()
      .describe(
        `Mark the three tools \`_meta["anthropic/alwaysLoad"]: true\`, so a client that defers tools behind its own tool search (Claude Code) loads them at once. Default ${DEFAULTS.serve.alwaysLoad}.`,
      ),
    questionTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .optional()
      .describe(
        `How long a backend's question to a 2026-07-28 client (an \`input_required\` reply of run_tool) waits for the client's retry; then the call is cancelled and its state refused. Default ${msWords(DEFAULTS.serve.questionTimeoutMs)}.`,
      ),
    taskAfterMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        `A run_tool call of a 2026-07-28 client that declared the tasks extension (\`io.modelcontextprotocol/tasks\`) and is still running after this long becomes a task: the client gets its id at once and reads its status and result with \`tasks/get\` (any replica on a shared store answers). 0: every such call is a task. Default ${msWords(DEFAULTS.serve.taskAfterMs)}.`,
      ),
    taskTtlMs: z
      .number()
      .int()
      .min(1000)
      .optional()
      .describe(
        `How long a task and its result are kept after its last change; then \`tasks/get\` no longer knows it. Default ${msWords(DEFAULTS.serve.taskTtlMs)}.`,
      ),
    callsPerCaller: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `run_tool calls one caller may have running at once, tasks included, under every profile together (and on every replica sharing a Redis store); past it a call is refused before anything runs (\`too_many_calls\`), another caller's are not. Default ${DEFAULTS.serve.callsPerCaller}.`,
      ),
    questionsPerCaller: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `Questions waiting for one caller's answer at once: approvals metatools asks, and backends' questions to its user or model (elicitation, sampling), whether pushed in a session, returned as \`input_required\` or held by a task; past it a question is not asked (\`too_many_questions\`). Default ${DEFAULTS.serve.questionsPerCaller}.`,
      ),
    taskBytesPerCaller: z
      .number()
      .int()
      .min(64 << 10)
      .optional()
      .describe(
        `Bytes one caller's task records may take together, results included; past it that caller's own oldest tasks are forgotten first (\`tasks/get\` says so), never another caller's. Default ${bytesWords(DEFAULTS.serve.taskBytesPerCaller)}.`,
      ),
    taskBytes: z
      .number()
      .int()
      .min(64 << 10)
      .optional()
      .describe(
        `Bytes all callers' task records may take together; past it a long call stays a plain call (its client waits for the result) instead of becoming a task, and nobody's tasks are forgotten for it. Default ${bytesWords(DEFAULTS.serve.taskBytes)}.`,
      ),
  })
  .strict()
  .optional()
  .describe("What `metatools serve` tells the clients it serves, on stdio and HTTP, and each caller's share of what it holds for them.");
