/**
 * Which values from the environment are secrets (src/config/secrets.ts), as
 * a table: the config loader decides, and refuses a secret too short to
 * redact with an error naming the field and the variable, while ordinary
 * short values (a flag, a port, a region) load as before.
 */
import { describe, expect, it } from "vitest";
import { looksLikeCredential } from "../../../src/config/secrets.js";
import { parseConfig } from "../../../src/config/load.js";
import { ConfigError } from "../../../src/util/errors.js";

const FILE = "/etc/project/metatools.json";
const server = (fields: Record<string, unknown>) => ({ mcpServers: { s: { command: "x", ...fields } } });
const remote = (fields: Record<string, unknown>) => ({ mcpServers: { r: { url: "https://example.com/mcp", ...fields } } });

/** [what, config, env, the secrets found as [name, value, credential]] */
const FOUND: [string, unknown, Record<string, string>, [string, string, boolean][]][] = [
  ["a short flag in env is no secret", server({ env: { DEBUG: "${DEBUG}" } }), { DEBUG: "1" }, []],
  ["a port in args is no secret", server({ args: ["--port", "${PORT}"] }), { PORT: "8080" }, []],
  ["a short header value under an ordinary name is no secret", remote({ headers: { "X-Region": "${REGION}" } }), { REGION: "eu" }, []],
  [
    "a long value in env is redacted whatever its name, but is no credential",
    server({ env: { GH: "${GH}" } }),
    { GH: "ghp_0123456789" },
    [["GH", "ghp_0123456789", false]],
  ],
  [
    "a credential's name makes a secret anywhere",
    { mcpServers: { s: { command: "${TOOL_TOKEN}" } } },
    { TOOL_TOKEN: "tok-123456" },
    [["TOOL_TOKEN", "tok-123456", true]],
  ],
  ["a value the file itself gives is no secret", remote({ headers: { Authorization: "Bearer ${TOKEN:-anonymous}" } }), {}, []],
  [
    "a bearer header gives its token",
    remote({ headers: { Authorization: "${AUTH_HEADER}" } }),
    { AUTH_HEADER: "Bearer abcdef123" },
    [
      ["AUTH_HEADER", "Bearer abcdef123", true],
      ["AUTH_HEADER", "abcdef123", true],
    ],
  ],
  [
    "a bearer value under an ordinary header is redacted, as no credential",
    remote({ headers: { "X-Forwarded": "${FWD}" } }),
    { FWD: "Bearer abcdef123" },
    [
      ["FWD", "Bearer abcdef123", false],
      ["FWD", "abcdef123", false],
    ],
  ],
  [
    "a URL from one variable gives its password, as written and decoded",
    { metatools: { store: { url: "${REDIS_URL}" } } },
    { REDIS_URL: "redis://:p%40ssword1@db:6379" },
    [
      ["REDIS_URL", "redis://:p%40ssword1@db:6379", false],
      ["REDIS_URL", "p%40ssword1", true],
      ["REDIS_URL", "p@ssword1", true],
    ],
  ],
  ["an unencoded @ stays in the password", remote({ url: "https://u:${RP}@h.example/mcp" }), { RP: "rp@ss$word1+x" }, [["RP", "rp@ss$word1+x", true]]],
  ["a setting about a credential is none: AUTH_ENABLED", server({ env: { AUTH_ENABLED: "${AUTH_ENABLED}" } }), { AUTH_ENABLED: "true" }, []],
  ["a setting about a credential is none: PRIVATE_REPOS", server({ args: ["--private-repos", "${PRIVATE_REPOS}"] }), { PRIVATE_REPOS: "false" }, []],
  ["a setting about a credential is none: KEY_PREFIX", { metatools: { store: { prefix: "${KEY_PREFIX}" } } }, { KEY_PREFIX: "app:" }, []],
  ["a setting about a credential is none: TOKEN_TTL in a header", remote({ headers: { "X-Token-Ttl": "${TOKEN_TTL}" } }), { TOKEN_TTL: "3600" }, []],
  [
    "a credential under a form word still is one",
    server({ env: { RAILS: "${SECRET_KEY_BASE}" } }),
    { SECRET_KEY_BASE: "0123456789abcdef" },
    [["SECRET_KEY_BASE", "0123456789abcdef", true]],
  ],
];

/** [what, config, env, the field and the words the refusal must say] */
const REFUSED: [string, unknown, Record<string, string>, string, RegExp][] = [
  [
    "a credential's name",
    server({ env: { X: "${API_KEY}" } }),
    { API_KEY: "abc" },
    "mcpServers.s.env.X",
    /\$\{API_KEY\} is a secret here \(its name looks like a credential\), but its value has only 3 characters/,
  ],
  [
    "an env entry named like a credential",
    server({ env: { GITHUB_TOKEN: "${GH}" } }),
    { GH: "abc12" },
    "mcpServers.s.env.GITHUB_TOKEN",
    /the value of the variable GITHUB_TOKEN/,
  ],
  [
    "the Authorization header",
    remote({ headers: { Authorization: "Bearer ${T}" } }),
    { T: "abc" },
    "mcpServers.r.headers.Authorization",
    /the header Authorization/,
  ],
  ["a URL's password", remote({ url: "https://user:${P}@h.example/mcp" }), { P: "pw" }, "mcpServers.r.url", /a URL's password/],
  [
    "a URL parameter named like a credential",
    remote({ url: "https://h.example/mcp?api_key=${K}" }),
    { K: "k1" },
    "mcpServers.r.url",
    /the URL parameter "api_key"/,
  ],
  ["the argument after --token", server({ args: ["--token", "${T}"] }), { T: "t1" }, "mcpServers.s.args[1]", /follows the flag --token/],
  ["--token=", server({ args: ["--token=${T}"] }), { T: "t1" }, "mcpServers.s.args[0]", /follows the flag --token/],
  ["a bearer token", { metatools: { http: { tokens: ["${T}"] } } }, { T: "t1" }, "metatools.http.tokens[0]", /it is a bearer token/],
  [
    "a short password inside a URL value",
    { metatools: { store: { url: "${REDIS_URL}" } } },
    { REDIS_URL: "redis://:pw@db:6379" },
    "metatools.store.url",
    /\$\{REDIS_URL\} .*the password of a URL.*that part of its value has only 2 characters/,
  ],
];

describe("secrets from the environment", () => {
  it.each(FOUND)("%s", (_what, raw, env, secrets) => {
    const config = parseConfig(raw, { file: FILE, env });
    expect(config.secrets.map((s) => [s.name, s.value, s.credential])).toEqual(secrets);
  });

  it.each(REFUSED)("refuses a short secret: %s", (_what, raw, env, field, detail) => {
    // In a server's entry, that server is set aside (needs_config) and the rest loads; elsewhere, the config is refused.
    let refused: { field: string; message: string } | undefined;
    try {
      const server = parseConfig(raw, { file: FILE, env }).unresolved[0];
      refused = server && { field: server.field, message: server.problem };
    } catch (caught) {
      expect(caught).toBeInstanceOf(ConfigError);
      refused = caught as ConfigError;
    }
    expect(refused?.field).toBe(field);
    expect(refused?.message).toMatch(detail);
    expect(refused?.message).toMatch(/write its value into the config instead/);
    // The refusal names the variable, never its value.
    for (const value of Object.values(env)) expect(refused?.message).not.toContain(`: ${value}`);
  });

  it("counts tokens from METATOOLS_TOKENS as secrets", () => {
    const config = parseConfig({}, { file: FILE, env: { METATOOLS_TOKENS: `${"a".repeat(20)},${"b".repeat(16)}` } });
    expect(config.secrets).toEqual([
      { name: "METATOOLS_TOKENS", value: "a".repeat(20), credential: true },
      { name: "METATOOLS_TOKENS", value: "b".repeat(16), credential: true },
    ]);
  });

  it.each([
    ["GITHUB_TOKEN", true],
    ["OPENAI_API_KEY", true],
    ["OPENAI_API_KEYS", true],
    ["API_KEY", true],
    ["PGPASSWORD", true],
    ["DB_PASS", true],
    ["DB_PWD", true],
    ["apiKey", true],
    ["access_token", true],
    ["CLIENT_SECRET", true],
    ["AWS_CREDENTIALS", true],
    ["SSH_PRIVATE_KEY", true],
    ["AWS_SECRET_ACCESS_KEY", true],
    ["GITHUB_PAT", true],
    ["BASIC_AUTH", true],
    ["SECRET_KEY_BASE", true],
    ["PRIVATE_KEY_PEM", true],
    ["GHTOKEN", true],
    ["SLACK_BOT_TOKENS", true],
    // Headers.
    ["Authorization", true],
    ["Proxy-Authorization", true],
    ["X-Api-Key", true],
    ["X-Auth-Token", true],
    ["Cookie", true],
    ["Private-Token", true],
    // URL parameters and flags, as the rule sees them (without `?`, `=` and dashes).
    ["api_key", true],
    ["apikey", true],
    ["key", true],
    ["token", true],
    ["password", true],
    ["client-secret", true],
    ["auth-token", true],
    ["DEBUG", false],
    ["PORT", false],
    ["PATH", false],
    ["PWD", false],
    ["BYPASS_CACHE", false],
    ["OAUTH_ENABLED", false],
    ["KEYBOARD", false],
    ["MONKEY", false],
    ["AUTHOR", false],
    // A credential's word before the last one names a setting about it.
    ["AUTH_ENABLED", false],
    ["PRIVATE_REPOS", false],
    ["KEY_PREFIX", false],
    ["TOKEN_TTL", false],
    ["PASSWORD_MIN_LENGTH", false],
    ["SECRET_NAME", false],
    ["API_KEY_FILE", false],
    ["token-file", false],
    ["X-Auth-User", false],
    ["GITHUB_TOKEN_SCOPES", false],
    ["PRIVATE", false],
    ["tokenTtl", false],
  ])("%s looks like a credential: %s", (name, expected) => {
    expect(looksLikeCredential(name)).toBe(expected);
  });
});
