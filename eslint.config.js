import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "test/fixtures/lint/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // A promise nobody awaits or catches fails silently (an unhandled rejection kills the process); one passed where a
    // plain callback is expected is never awaited. Both need the types, so these rules run with the project's tsconfig.
    files: ["src/**/*.ts", "test/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  {
    // stdout carries the MCP protocol: only the CLI may print to it.
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**"],
    rules: { "no-console": ["error", { allow: ["error", "warn"] }] },
  },
  {
    // What a person reads may quote a backend, a server or an agent: it is printed only through the sinks that make it
    // printable (src/cli/output.ts for the CLI, the logger for logs), never written to the terminal directly.
    files: ["src/**/*.ts"],
    ignores: ["src/cli/output.ts", "src/util/log.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.object.name='process'][object.property.name=/^std(out|err)$/][property.name='write']",
          message: "Print through src/cli/output.ts (stdout(), stderr()) or the logger: text from outside must not reach a terminal raw.",
        },
      ],
    },
  },
  {
    // The bottom layer: shapes and small pieces every layer uses, which know nothing above them.
    files: ["src/util/**/*.ts", "src/model/**/*.ts", "src/text/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              // The list of error codes imports nothing: faults (util/errors.ts) carry its codes.
              group: ["../*", "!../model", "../model/*", "!../model/error-codes.js"],
              message: "util/, model/ and text/ are the bottom layer: they import nothing else of the project (but the list of error codes).",
            },
          ],
        },
      ],
    },
  },
  {
    // MCP plumbing: the SDK, and the shared shapes of model/; never the app, backends or tools.
    files: ["src/server/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^\\.\\./(?!model/)", message: "server/ is MCP plumbing: it imports the SDK and model/ only." }] },
      ],
    },
  },
  {
    // The config is read at the edge and trusted inside: it knows the bottom layer and itself, nothing it configures.
    files: ["src/config/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!(util|model)/|text/suggest\\.js$)",
              message: "config/ imports util/, model/, text/suggest.js (did you mean) and its own files only: what it configures imports it.",
            },
          ],
        },
      ],
    },
  },
  {
    // The sandbox knows nothing of tools, backends or callers: a program's calls go to the host it is handed (model/program.ts).
    files: ["src/scripts/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^\\.\\./(?!model/)", message: "scripts/ imports model/ and its own files only: every call goes to the host it is handed." }] },
      ],
    },
  },
  {
    // stdio is a transport: it hands sessions to serving.ts and reads the app only to say what it serves.
    files: ["src/stdio/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!(util|meta)/|app\\.js$|serving\\.js$)",
              message: "stdio/ imports the app, serving.ts, meta/ and util/ only: a transport decides how sessions arrive, nothing more.",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read arbitrary JSON response bodies; typing each one would only restate the assertions.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly" } },
  },
);
