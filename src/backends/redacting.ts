/**
 * Redaction at the source: everything a backend says (tool definitions, its
 * server info, call results with their structured content and resources,
 * progress messages, errors, its requests back to the client) is redacted
 * as it enters metatools, before anything caches, stores, summarises,
 * slices, greps or escapes it. Text cut after redaction can only cut a
 * `[redacted $NAME]` marker, never a secret.
 */
import type { OutputStore } from "../disclosure/outputs.js";
import type { UpstreamTool } from "../model/tool.js";
import { redactDeep, redactError, type Redact } from "../util/redact.js";
import type {
  CompleteRequest,
  CompleteResult,
  ContentBlock,
  CreateMessageRequest,
  ElicitRequest,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import { BackendError } from "./errors.js";
import { theirsInline } from "../security/outside.js";
import type { Backend, BackendEvent, BackendInfo, CallOptions, ListedResources, ProtocolEra, ToolCallResult } from "./types.js";

/** The most of a backend's progress message passed on: a status line, not a page. */
const PROGRESS_CHARS = 300;

export class RedactingBackend implements Backend {
  /** A tool whose name showed a secret is listed under the redacted name; calls map it back. */
  private readonly realNames = new Map<string, string>();

  constructor(
    private readonly inner: Backend,
    private readonly redact: Redact,
  ) {}

  get namespace(): string {
    return this.inner.namespace;
  }

  get kind(): Backend["kind"] {
    return this.inner.kind;
  }

  get runnable(): boolean {
    return this.inner.runnable;
  }

  connect(signal: AbortSignal): Promise<void> {
    return this.guard(() => this.inner.connect(signal));
  }

  knownEra(era: ProtocolEra): void {
    this.inner.knownEra?.(era);
  }

  info(): BackendInfo | undefined {
    const info = this.inner.info();
    return info && redactDeep(info, this.redact);
  }

  async listTools(signal?: AbortSignal): Promise<UpstreamTool[]> {
    const tools = await this.guard(() => this.inner.listTools(signal));
    return tools.map((tool) => {
      const shown = redactDeep(tool, this.redact);
      if (shown.name !== tool.name) this.realNames.set(shown.name, tool.name);
      return shown;
    });
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
    const { onProgress } = options;
    const forward =
      onProgress &&
      ((update: Parameters<typeof onProgress>[0]) =>
        onProgress(update.message === undefined ? update : { ...update, message: theirsInline(this.redact(update.message), PROGRESS_CHARS) }));
    const result = await this.guard(() => this.inner.callTool(this.realNames.get(name) ?? name, args, { ...options, onProgress: forward }));
    return redactResult(result, this.redact);
  }

  setLogLevel(level: LoggingLevel): Promise<void> {
    return this.inner.setLogLevel?.(level) ?? Promise.resolve();
  }

  async listPrompts(signal?: AbortSignal): Promise<Prompt[]> {
    return redactDeep(this.inner.listPrompts ? await this.guard(() => this.inner.listPrompts!(signal)) : [], this.redact);
  }

  async getPrompt(name: string, args: Record<string, string>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<GetPromptResult> {
    if (!this.inner.getPrompt) throw new BackendError("upstream_error", `${this.namespace} serves no prompts`);
    const { messages, ...rest } = await this.guard(() => this.inner.getPrompt!(name, args, options));
    return { ...redactDeep(rest, this.redact), messages: messages.map((m) => ({ ...m, content: redactContent(m.content, this.redact) })) };
  }

  async complete(params: CompleteRequest["params"], options: { signal?: AbortSignal; timeoutMs: number }): Promise<CompleteResult> {
    if (!this.inner.complete) return { completion: { values: [] } };
    return redactDeep(await this.guard(() => this.inner.complete!(params, options)), this.redact);
  }

  async listResources(signal?: AbortSignal): Promise<ListedResources> {
    return redactDeep(this.inner.listResources ? await this.guard(() => this.inner.listResources!(signal)) : { resources: [], templates: [] }, this.redact);
  }

  async readResource(uri: string, options: { signal?: AbortSignal; timeoutMs: number }): Promise<ReadResourceResult> {
    if (!this.inner.readResource) throw new BackendError("upstream_error", `${this.namespace} serves no resources`);
    const result = await this.guard(() => this.inner.readResource!(uri, options));
    return { ...redactDeep({ ...result, contents: [] }, this.redact), contents: result.contents.map((c) => withoutSecrets(c, this.redact)) };
  }

  onEvent(listener: (event: BackendEvent) => void): void {
    this.inner.onEvent((event) => {
      if (event.type === "disconnected" && event.error) listener({ ...event, error: redactError(event.error, this.redact) as Error });
      else if (event.type === "needs_login") listener({ ...event, message: this.redact(event.message) });
      else if (event.type === "log") listener(redactDeep(event, this.redact));
      else listener(event);
    });
  }

  watchSignIn(listener: () => void): (() => void) | undefined {
    return this.inner.watchSignIn?.(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async guard<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw redactError(error, this.redact);
    }
  }
}

/**
 * A call result with secrets taken out of every word it says, but not out
 * of base64 data (images, audio, binary resources): letters of a secret met
 * by chance inside an encoding are not the secret, and replacing them would
 * break the file.
 */
function redactResult(result: ToolCallResult, redact: Redact): ToolCallResult {
  const { content, ...rest } = result;
  return { ...redactDeep(rest, redact), content: (content ?? []).map((block) => redactContent(block, redact)) };
}

/** One content block without secrets in its words; base64 data (images, audio, a resource's blob) as it is. */
export function redactContent<T extends ContentBlock>(block: T, redact: Redact): T {
  if (block.type === "image" || block.type === "audio") return { ...redactDeep({ ...block, data: "" }, redact), data: block.data };
  if (block.type === "resource") return { ...redactDeep({ ...block, resource: {} }, redact), resource: withoutSecrets(block.resource, redact) };
  return redactDeep(block, redact);
}

/** A resource's contents without secrets in its text or metadata; a blob as it is. */
function withoutSecrets<T extends { uri: string; text?: string; blob?: string }>(contents: T, redact: Redact): T {
  if (typeof contents.blob !== "string") return redactDeep(contents, redact);
  return { ...redactDeep({ ...contents, blob: "" }, redact), blob: contents.blob };
}

/**
 * A backend's request back to the client (elicitation, sampling) without a
 * secret in any string or key: the message, the whole requested schema
 * (titles, descriptions, defaults, enum values, property names), a URL,
 * every message of a sampling request with its system prompt, stop
 * sequences, metadata, tools and `_meta`. Unlike a result's images, a
 * sampling message's base64 data is redacted too: it goes to the client's
 * model to be read, not to a file kept whole, and a secret's base64 form
 * there would be read by that model (a broken image is refused by the
 * client, which tells the backend; a leaked secret could not be taken back).
 */
export function redactRequest<T extends ElicitRequest["params"] | CreateMessageRequest["params"]>(params: T, redact: Redact): T {
  return redactDeep(params, redact);
}

/**
 * An output store whose outputs are redacted as they are stored: built-in
 * tools that keep large outputs themselves (code:read_file) put them in the
 * store before their reply passes the RedactingBackend, and read_output
 * later slices what was stored.
 */
export function redactingOutputStore(store: OutputStore, redact: Redact): OutputStore {
  return {
    put: (output, owner) => store.put({ ...output, text: redact(output.text) }, owner),
    get: (handle, owner) => store.get(handle, owner),
    get ttlMs() {
      return store.ttlMs;
    },
    get maxBytes() {
      return store.maxBytes;
    },
  };
}
