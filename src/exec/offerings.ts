/**
 * Backends' prompts and resources, offered to clients beside the three
 * tools and named like them: a prompt as `namespace:name`, a resource and a
 * template under `metatools://namespace/<the backend's uri>`. A caller sees
 * the offerings of the namespaces its profile shows; a backend not ready
 * offers nothing until it is. Everything a backend says has passed the
 * redacting wrapper (backends/redacting.ts).
 */
import type { UriTemplate as Template } from "@modelcontextprotocol/server";
import type { CompleteRequest, CompleteResult, GetPromptResult, Prompt, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import type { BackendManager } from "../backends/manager.js";
import type { ListedResources } from "../backends/types.js";
import { sharedUri, SHARED_SCHEME, type LinkTarget } from "../disclosure/resource-links.js";
import { jsonBytes } from "../disclosure/budget.js";
import { namespaceOf } from "../model/tool.js";
import { errorMessage } from "../util/errors.js";

/** Which namespaces the caller's profile shows. */
export type Sees = (namespace: string) => boolean;

export type PromptOutcome = { kind: "ok"; result: GetPromptResult } | { kind: "unknown" | "too_large" | "failed"; message: string };

/** How long a backend's listing of its resources stands for reads of them. */
const LISTING_TTL_MS = 60_000;

export class BackendOfferings {
  private readonly listings = new Map<string, { at: number; listed: ListedResources }>();

  constructor(
    private readonly backends: BackendManager,
    private readonly timeoutMs: number,
    /** The most a filled-in prompt may weigh (UTF-8 JSON): it goes into the model's context whole. */
    private readonly promptBytes: number,
    /** How long a listing waits for a backend still connecting (a server started from its snapshot lists tools before its backends are up). */
    private readonly waitMs = 3000,
  ) {}

  /** Every prompt of the ready backends the caller sees, as `namespace:name`. */
  async prompts(sees: Sees, signal?: AbortSignal): Promise<Prompt[]> {
    const listed = await this.each(sees, async (namespace, backend) =>
      (await backend.listPrompts?.(signal))?.map((prompt) => ({ ...prompt, name: `${namespace}:${prompt.name}` })),
    );
    return listed.flat();
  }

  async prompt(id: string, args: Record<string, string>, sees: Sees, signal?: AbortSignal): Promise<PromptOutcome> {
    const namespace = namespaceOf(id);
    if (namespace !== undefined && sees(namespace) && !this.ready(namespace)) await this.awaitReady(namespace);
    const backend = namespace !== undefined && sees(namespace) && this.ready(namespace) ? this.backends.backend(namespace) : undefined;
    if (!namespace || !backend?.getPrompt)
      return { kind: "unknown", message: `no prompt "${id}": prompts are named namespace:name, as prompts/list gives them` };
    try {
      const result = await backend.getPrompt(id.slice(namespace.length + 1), args, { signal, timeoutMs: this.timeoutMs });
      const bytes = jsonBytes(result);
      if (bytes > this.promptBytes)
        return {
          kind: "too_large",
          message: `prompt ${id} is ${bytes} bytes filled in, more than metatools.budgets.inlineBytes (${this.promptBytes}) lets into a reply; raise it, or fill the prompt in with shorter arguments`,
        };
      return { kind: "ok", result };
    } catch (error) {
      return { kind: "failed", message: errorMessage(error) };
    }
  }

  /**
   * Suggestions for an argument of a backend's prompt (`namespace:name`) or
   * resource template (`metatools://namespace/...`), asked of that backend
   * under its own names; none for a name the caller cannot see.
   */
  async complete(params: CompleteRequest["params"], sees: Sees, signal?: AbortSignal): Promise<CompleteResult> {
    const none: CompleteResult = { completion: { values: [] } };
    const { ref } = params;
    let namespace: string | undefined;
    let own: CompleteRequest["params"]["ref"];
    if (ref.type === "ref/prompt") {
      namespace = namespaceOf(ref.name);
      own = { ...ref, name: namespace === undefined ? ref.name : ref.name.slice(namespace.length + 1) };
    } else {
      const target = parseShared(ref.uri);
      namespace = target?.namespace;
      own = { ...ref, uri: target?.uri ?? ref.uri };
    }
    if (namespace === undefined || !sees(namespace)) return none;
    if (!this.ready(namespace)) await this.awaitReady(namespace);
    const backend = this.ready(namespace) ? this.backends.backend(namespace) : undefined;
    if (!backend?.complete) return none;
    return backend.complete({ ...params, ref: own }, { signal, timeoutMs: this.timeoutMs }).catch(() => none);
  }

  /** Every resource and template of the ready backends the caller sees, under metatools:// names. */
  async resources(sees: Sees, signal?: AbortSignal): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    const listed = await this.each(sees, async (namespace) => {
      const own = await this.listing(namespace, signal, true);
      return own && { namespace, ...own };
    });
    return {
      resources: listed.flatMap(({ namespace, resources }) => resources.map((r) => ({ ...r, uri: sharedUri({ namespace, uri: r.uri }) }))),
      templates: listed.flatMap(({ namespace, templates }) =>
        templates.map((t) => ({ ...t, uriTemplate: `${SHARED_SCHEME}${encodeURIComponent(namespace)}/${t.uriTemplate}` })),
      ),
    };
  }

  /**
   * What a metatools:// name stands for when the backend lists it (or one of
   * its templates matches it) and the caller sees the namespace: a listed
   * resource is anyone's who may see its backend, unlike a link handed to one caller.
   */
  async listed(shared: string, sees: Sees, signal?: AbortSignal): Promise<LinkTarget | undefined> {
    const target = parseShared(shared);
    if (!target || !sees(target.namespace)) return undefined;
    if (!this.ready(target.namespace)) await this.awaitReady(target.namespace);
    if (!this.ready(target.namespace)) return undefined;
    const listing = await this.listing(target.namespace, signal, false);
    if (!listing) return undefined;
    if (listing.resources.some((r) => r.uri === target.uri)) return target;
    if (!listing.templates.length) return undefined;
    // The SDK's template matcher comes with its server package: loaded only for a template to match.
    const { UriTemplate } = await import("@modelcontextprotocol/server");
    return listing.templates.some((t) => matches(UriTemplate, t.uriTemplate, target.uri)) ? target : undefined;
  }

  private async listing(namespace: string, signal: AbortSignal | undefined, fresh: boolean): Promise<ListedResources | undefined> {
    const kept = this.listings.get(namespace);
    if (kept && !fresh && Date.now() - kept.at < LISTING_TTL_MS) return kept.listed;
    const backend = this.backends.backend(namespace);
    const listed = await backend?.listResources?.(signal).catch(() => undefined);
    if (listed) this.listings.set(namespace, { at: Date.now(), listed });
    return listed;
  }

  private async awaitReady(namespace: string): Promise<void> {
    const signal = AbortSignal.timeout(this.waitMs);
    await this.backends.whenReady(namespace, signal).catch(() => {});
  }

  private ready(namespace: string): boolean {
    return this.backends.state(namespace)?.status === "ready";
  }

  /**
   * `work` for each backend the caller sees that is ready, or becomes ready
   * within `waitMs`, at once; a backend that fails offers nothing this time.
   */
  private async each<T>(
    sees: Sees,
    work: (namespace: string, backend: NonNullable<ReturnType<BackendManager["backend"]>>) => Promise<T | undefined>,
  ): Promise<T[]> {
    const namespaces = this.backends
      .states()
      .filter((state) => ["ready", "connecting", "reconnecting"].includes(state.status) && sees(state.namespace))
      .map((state) => state.namespace);
    const results = await Promise.all(
      namespaces.map(async (namespace) => {
        if (!this.ready(namespace)) await this.awaitReady(namespace);
        const backend = this.ready(namespace) ? this.backends.backend(namespace) : undefined;
        return backend ? await work(namespace, backend).catch(() => undefined) : undefined;
      }),
    );
    return results.filter((r): r is Awaited<T> => r !== undefined) as T[];
  }
}

/** `metatools://ns/uri` back to its parts. */
function parseShared(shared: string): LinkTarget | undefined {
  if (!shared.startsWith(SHARED_SCHEME)) return undefined;
  const rest = shared.slice(SHARED_SCHEME.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  try {
    return { namespace: decodeURIComponent(rest.slice(0, slash)), uri: rest.slice(slash + 1) };
  } catch {
    return undefined;
  }
}

function matches(UriTemplate: typeof Template, template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}
