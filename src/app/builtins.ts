/** Metatools' own backends: output handles, resource reads, and the code tools when `code` is configured. */
import { redactingOutputStore } from "../backends/redacting.js";
import type { Backend } from "../backends/types.js";
import { outputsBackend } from "../builtin/read-output.js";
import { readResourceTool } from "../builtin/read-resource.js";
import { runProgramTool } from "../builtin/run-program.js";
import { Sandboxes } from "../scripts/sandbox.js";
import { createCodeBackend } from "../codeintel/index.js";
import type { ResolvedConfig } from "../config/resolved.js";
import type { OutputStore } from "../disclosure/outputs.js";
import type { ResourceReader } from "../exec/resources.js";
import { redactor, type Redact } from "../util/redact.js";

/** `resources` is read at call time: the reader is made after the backends. Programs' workers start at the first run and end with the backend. */
export function builtinBackends(config: ResolvedConfig, outputs: OutputStore, bodyBudget: number, redact: Redact, resources: () => ResourceReader): Backend[] {
  const scripts = config.scripts;
  let sandboxes: Sandboxes | undefined;
  const programs = () => (sandboxes ??= new Sandboxes({ workers: scripts.workers, memoryBytes: scripts.memoryMb << 20, perOwner: scripts.perCaller }));
  const tools = [readResourceTool(resources), ...(scripts.enabled ? [runProgramTool(programs, scripts)] : [])];
  const builtins: Backend[] = [outputsBackend(outputs, bodyBudget, tools, async () => sandboxes?.close())];
  if (config.code) {
    builtins.unshift(
      createCodeBackend({
        ...config.code,
        budget: bodyBudget,
        outputs: redactingOutputStore(outputs, redact),
        // Secrets leave project files' text before any tool cuts it. Grep searches text without credentials only
        // (it is no oracle for them), so a value redacted for where it was substituted (APP_STAGE=production) is found.
        redact,
        redactForSearch: redactor(config.secrets.filter((secret) => secret.credential !== false)),
      }),
    );
  }
  return builtins;
}
