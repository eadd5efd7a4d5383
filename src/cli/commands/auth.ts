/**
 * `metatools auth login|status|logout`: sign-ins to remote backends that
 * ask for OAuth. Only the config is loaded: no backend is started. Tokens
 * never show in what these print; a running server picks up a sign-in (or
 * a sign-out) by itself.
 */
import type { Credentials, SignIn } from "../../auth/credentials.js";
import { login } from "../../auth/login.js";
import { loginCommand, openCredentials, signsIn } from "../../auth/open.js";
import { isWebUrl, openUrl } from "../../auth/browser.js";
import { loadConfig } from "../../config/load.js";
import type { ResolvedConfig, SignInSpec } from "../../config/resolved.js";
import { kindLabel, kindsWhere, signsInKind } from "../../model/transport-kinds.js";
import { BUILTIN_CATALOG_DIR } from "../../app.js";
import { MetatoolsError } from "../../util/errors.js";
import { GrowingRedactor } from "../../util/redact.js";
import { textTable } from "../../util/table.js";
import { flag, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { stderr, stdout } from "../output.js";

export const command = defineCommand({
  name: "auth",
  group: "govern",
  summary: "sign in to remote backends that ask for OAuth (opens $BROWSER or the system browser), show sign-ins, sign out; a running server picks changes up",
  usage: (f) => `login NAME [${f.timeout}] [${f["no-browser"]}] | status [NAME]... [${f.json}] | logout NAME`,
  flags: {
    timeout: flag.int("S", 1, "login: how long to wait for the browser, in seconds (default 300)"),
    "no-browser": flag.boolean("login: print the sign-in URL without opening a browser"),
    json: SHARED.json,
  },
  run: authCommand,
});

export async function authCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  const [action, ...names] = positionals;
  const config = loadConfig({ configPath: values.config, root: values.root, builtinCatalogDir: BUILTIN_CATALOG_DIR });
  const credentials = openCredentials(config);
  if (!credentials) throw new MetatoolsError("no_config", "no config file: remote backends are configured in metatools.json (see metatools init)");
  try {
    if (action === "login") {
      if (names.length !== 1) throw new UsageError("name one backend: metatools auth login NAME");
      const timeoutMs = (values.timeout ?? 300) * 1000;
      const debug = values["log-level"] === "debug";
      return await signInOne(config, credentials, backendNamed(config, names[0]!), { timeoutMs, browser: !values["no-browser"], debug });
    }
    if (action === "status") {
      const rows = await status(
        config,
        credentials,
        names.map((n) => backendNamed(config, n, true).namespace),
      );
      if (values.json) stdout().json({ file: credentials.where, backends: rows });
      else stdout().write(`${renderStatus(rows, credentials.where)}\n`);
      return 0;
    }
    if (action === "logout") {
      if (names.length !== 1) throw new UsageError("name one backend: metatools auth logout NAME");
      const spec = backendNamed(config, names[0]!, true);
      const had = await credentials.read(spec.namespace);
      await credentials.update(spec.namespace, () => undefined);
      stdout().write(
        had
          ? `signed out of ${spec.namespace}: its tokens${had.client ? " and registered client" : ""} are gone from ${credentials.where}; a running metatools stops using them at once\n`
          : `${spec.namespace} was not signed in\n`,
      );
      return 0;
    }
    throw new UsageError(action ? `unknown action "${action}": use login, status or logout` : "say login NAME, status [NAME] or logout NAME");
  } finally {
    await credentials.close();
  }
}

/** A remote backend of the config that signs in; with `any`, any remote backend (status and logout name them all). */
function backendNamed(config: ResolvedConfig, name: string, any = false): SignInSpec {
  const spec = config.backends.find((b) => b.namespace === name);
  const remote = config.backends.filter(signsIn).map((b) => b.namespace);
  const only = kindsWhere((kind) => kind.signsIn)
    .map(kindLabel)
    .join(" and ");
  const known = remote.length ? `backends that sign in: ${remote.join(", ")}` : `no backend in this config signs in (only ${only} servers do)`;
  if (!spec) throw new UsageError(`no backend "${name}" in ${config.file}; ${known}`);
  if (!signsIn(spec) && !any) {
    const why = signsInKind(spec)
      ? "it has an Authorization header or oauth: false in the config"
      : `it is a ${kindLabel(spec.kind)} server (only ${only} servers sign in)`;
    throw new UsageError(`${name} does not sign in: ${why}; ${known}`);
  }
  return spec as SignInSpec;
}

async function signInOne(
  config: ResolvedConfig,
  credentials: Credentials,
  spec: SignInSpec,
  options: { timeoutMs: number; browser: boolean; debug: boolean },
): Promise<number> {
  const redact = new GrowingRedactor(config.secrets);
  const say = (line: string) => stderr().write(`${redact.redact(line)}\n`);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once("SIGINT", onSignal);
  say(`${spec.namespace}: signing in to ${spec.url}`);
  try {
    const result = await login(spec, {
      credentials,
      secret: (value) => redact.add(value, `[redacted OAuth token of ${spec.namespace}]`),
      say,
      timeoutMs: options.timeoutMs,
      signal: abort.signal,
      // A failure's stack, only when asked for: a person is shown its message.
      ...(options.debug ? { debug: (line: string) => say(`metatools debug: ${line}`) } : {}),
      open: async (url) => {
        const web = isWebUrl(url.href);
        const how = options.browser && web ? await openUrl(url.href) : "none";
        say(
          !web
            ? "  the sign-in page is not an https URL, so no browser was opened; open it yourself only if you trust it:"
            : how === "none"
              ? "  open this URL in a browser to sign in:"
              : `  a browser was opened (${how === "browser" ? "$BROWSER" : "the system opener"}); if it did not show the sign-in, open this URL:`,
        );
        say(`  ${url.href}`);
        say(`  waiting for the browser (${Math.round(options.timeoutMs / 1000)} s; Ctrl-C to stop)…`);
      },
    });
    if (!result.needed) {
      stdout().write(`${spec.namespace}: ${spec.url} answered without asking for a sign-in; nothing to do\n`);
      return 0;
    }
    const signIn = result.signIn!;
    stdout().write(`signed in to ${spec.namespace} (${describe(signIn, result.client)}); kept in ${credentials.where}\n`);
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

interface StatusRow {
  backend: string;
  url: string;
  status: "signed in" | "expired" | "not signed in" | "no sign-in";
  detail: string;
}

async function status(config: ResolvedConfig, credentials: Credentials, only: string[]): Promise<StatusRow[]> {
  const remote = config.backends.filter((b) => signsInKind(b) && (!only.length || only.includes(b.namespace)));
  return Promise.all(
    remote.map(async (spec): Promise<StatusRow> => {
      const url = "url" in spec ? spec.url : "";
      if (!signsIn(spec)) return { backend: spec.namespace, url, status: "no sign-in", detail: "an Authorization header or oauth: false in the config" };
      const signIn = await credentials.read(spec.namespace);
      if (!signIn?.tokens || signIn.url !== spec.url) {
        const moved = signIn && signIn.url !== spec.url ? `the sign-in is for ${signIn.url}, not this URL; ` : "";
        return { backend: spec.namespace, url, status: "not signed in", detail: `${moved}if the server asks for one: ${loginCommand(spec.namespace, config)}` };
      }
      const expired = signIn.expiresAt !== undefined && signIn.expiresAt < Date.now() && !signIn.tokens.refresh_token;
      return {
        backend: spec.namespace,
        url,
        status: expired ? "expired" : "signed in",
        detail: `${describe(signIn)}${expired ? `; sign in again: ${loginCommand(spec.namespace, config)}` : ""}${signIn.requiredScope ? `; a call needs scope "${signIn.requiredScope}": sign in again to get it (${loginCommand(spec.namespace, config)})` : ""}`,
      };
    }),
  );
}

/** "scope read write; access token expires in 59 min, renewed with a refresh token; client registered; authorization server URL" (no secret). */
function describe(signIn: SignIn, client?: string): string {
  const parts: string[] = [];
  if (signIn.tokens?.scope) parts.push(`scope ${signIn.tokens.scope}`);
  if (signIn.expiresAt !== undefined) {
    const minutes = Math.round((signIn.expiresAt - Date.now()) / 60_000);
    parts.push(`access token ${minutes >= 0 ? `expires in ${minutes} min` : `expired ${-minutes} min ago`}`);
  }
  parts.push(signIn.tokens?.refresh_token ? "renewed with a refresh token" : "no refresh token");
  if (client) parts.push(`client ${client}`);
  if (signIn.discovery?.authorizationServerUrl) parts.push(`authorization server ${signIn.discovery.authorizationServerUrl}`);
  return parts.join("; ");
}

function renderStatus(rows: StatusRow[], where: string): string {
  if (!rows.length) return "no remote backends in this config";
  const table = textTable({
    head: ["backend", "status", "url", "details"],
    align: ["left", "left", "left", "left"],
    rows: rows.map((r) => [r.backend, r.status, r.url, r.detail]),
  });
  return `${table}\nsign-ins are kept in ${where}`;
}
