/**
 * Every kind of backend, as data: where it runs, whether it signs in,
 * whether its tools run. Code asks this table a question (`isRemote`,
 * `signsInKind`) instead of testing a kind by name, so a new transport is
 * one row here and its own opener (backends/factory.ts, transports.ts).
 * In model/ because config/ reads it too.
 */

export interface KindTraits {
  /** local: a child process, a file or metatools itself; remote: reached at a URL. */
  place: "local" | "remote";
  /** Written as an `mcpServers` entry (false: added by metatools itself). */
  configured: boolean;
  /** It connects (a process or a URL), so its tool list is snapshotted and a failed start remembered; false: read at once. */
  connects: boolean;
  /** It may sign in with OAuth when the server asks (a remote server with no Authorization header and not `oauth: false`). */
  signsIn: boolean;
  /** Its tools can be called; false: searchable and describable only. */
  runnable: boolean;
  /** How a sign-in's first request reaches it: GET on its event stream, or POST an initialize. Remote kinds only. */
  probe?: "get" | "post";
  /** Its name in doctor's kind column and in CLI messages. */
  label: string;
}

export const TRANSPORT_KINDS = {
  stdio: { place: "local", configured: true, connects: true, signsIn: false, runnable: true, label: "stdio" },
  http: { place: "remote", configured: true, connects: true, signsIn: true, runnable: true, probe: "post", label: "http" },
  sse: { place: "remote", configured: true, connects: true, signsIn: true, runnable: true, probe: "get", label: "sse" },
  catalog: { place: "local", configured: true, connects: false, signsIn: false, runnable: false, label: "catalog" },
  builtin: { place: "local", configured: false, connects: true, signsIn: false, runnable: true, label: "builtin" },
} as const satisfies Record<string, KindTraits>;

export type TransportKind = keyof typeof TRANSPORT_KINDS;

/** The kinds whose row matches `Traits`, e.g. `KindsWhere<{ place: "remote" }>` is "http" | "sse". */
export type KindsWhere<Traits> = { [K in TransportKind]: (typeof TRANSPORT_KINDS)[K] extends Traits ? K : never }[TransportKind];

/** A kind an `mcpServers` entry resolves to. */
export type ConfiguredKind = KindsWhere<{ configured: true }>;
export type RemoteKind = KindsWhere<{ place: "remote" }>;
/** A configured kind that connects: the kinds that carry request limits and are snapshotted. */
export type ConnectingKind = KindsWhere<{ configured: true; connects: true }>;

/** The kinds whose traits pass `test`, in table order (e.g. for "only http and sse servers sign in"). */
export function kindsWhere(test: (traits: KindTraits) => boolean): TransportKind[] {
  return (Object.keys(TRANSPORT_KINDS) as TransportKind[]).filter((kind) => test(TRANSPORT_KINDS[kind]));
}

export function isRemote<T extends { kind: TransportKind }>(spec: T): spec is T & { kind: RemoteKind } {
  return TRANSPORT_KINDS[spec.kind].place === "remote";
}

/** A kind that may sign in; whether this entry does depends on its settings too (auth/open.ts `signsIn`). */
export function signsInKind<T extends { kind: TransportKind }>(spec: T): spec is T & { kind: KindsWhere<{ signsIn: true }> } {
  return TRANSPORT_KINDS[spec.kind].signsIn;
}

export function connects<T extends { kind: TransportKind }>(spec: T): spec is T & { kind: KindsWhere<{ connects: true }> } {
  return TRANSPORT_KINDS[spec.kind].connects;
}

export function kindLabel(kind: TransportKind): string {
  return TRANSPORT_KINDS[kind].label;
}

/** The remote kind an entry's `type` names: unset, or `streamable-http` (the MCP spec's name), is http; undefined when it names none. */
export function remoteKindOf(type: unknown): RemoteKind | undefined {
  if (type === undefined || type === "streamable-http") return "http";
  const named = typeof type === "string" && Object.hasOwn(TRANSPORT_KINDS, type) ? (type as TransportKind) : undefined;
  return named && TRANSPORT_KINDS[named].place === "remote" ? (named as RemoteKind) : undefined;
}

/** A backend metatools serves itself (not an `mcpServers` entry); false for undefined (no such backend). */
export function isOwnKind(kind: TransportKind | undefined): boolean {
  return kind !== undefined && !TRANSPORT_KINDS[kind].configured;
}
