/** Metatools' own backends: output handles, resource reads, and the code tools when `code` is configured. */
import { redactingOutputStore } from "../backends/redacting.js";
import type { Backend } from "../backends/types.js";
import { outputsBackend } from "../builtin/read-output.js";
import { readResourceTool } from "../builtin/read-resource.js";
import { createCodeBackend } from "../codeintel/index.js";
import type { ResolvedConfig } from "../config/resolved.js";
import type { OutputStore } from "../disclosure/outputs.js";
import type { ResourceReader } from "../exec/resources.js";
import { redactor, type Redact } from "../util/redact.js";

/** `resources` is read at call time: the reader is made after the backends. */
export function builtinBackends(config: ResolvedConfig, outputs: OutputStore, bodyBudget: number, redact: Redact, resources: () => ResourceReader): Backend[] {
  const builtins: Backend[] = [outputsBackend(outputs, bodyBudget, [readResourceTool(resources)])];
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
