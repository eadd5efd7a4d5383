/**
 * Starts the OpenTelemetry Node SDK when the environment asks for export,
 * through the standard variables only: OTEL_EXPORTER_OTLP_ENDPOINT (or the
 * per-signal _TRACES_/_METRICS_ endpoints), OTEL_TRACES_EXPORTER,
 * OTEL_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME,
 * OTEL_METRIC_EXPORT_INTERVAL and the rest, all read by the SDK itself.
 * With none set, nothing is loaded and the instrumentation stays a no-op.
 */
import { importExternal } from "../util/import-external.js";
const TRIGGERS = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
];

export interface TelemetrySdk {
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export function telemetryRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return false;
  return TRIGGERS.some((name) => !!env[name] && env[name] !== "none");
}

/**
 * `stdoutIsProtocol`: stdout carries MCP (serving on stdio), so the SDK's
 * `console` exporters, which print to stdout, are dropped with a warning.
 */
const SDK_PACKAGE = "@opentelemetry/sdk-node";

/** The part of @opentelemetry/sdk-node metatools uses. */
interface SdkModule {
  NodeSDK: new (options: { serviceName: string; logRecordProcessors: [] }) => { start(): void; shutdown(): Promise<void> };
}

export async function startTelemetrySdk(
  env: NodeJS.ProcessEnv = process.env,
  options: { stdoutIsProtocol?: boolean; warn?: (message: string) => void } = {},
): Promise<TelemetrySdk | undefined> {
  if (!telemetryRequested(env)) return undefined;
  if (options.stdoutIsProtocol) {
    for (const name of ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER"]) {
      const listed = (env[name] ?? "")
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean);
      if (!listed.includes("console")) continue;
      const kept = listed.filter((e) => e !== "console");
      // The SDK reads these variables itself, so the change is made where it looks.
      env[name] = kept.length ? kept.join(",") : "none";
      options.warn?.(`${name}=console ignored: stdout carries the MCP protocol; use an OTLP endpoint instead`);
    }
    if (!telemetryRequested(env)) return undefined;
  }
  // An optional package: those who export telemetry install it (named by a variable, so building metatools does not need it).
  const loaded = (await importExternal(SDK_PACKAGE).catch(() => undefined)) as SdkModule | undefined;
  if (!loaded) {
    options.warn?.(
      `OTEL_* is set, but the OpenTelemetry SDK is not installed: run \`npm install ${SDK_PACKAGE}\` to export traces and metrics; until then nothing is exported`,
    );
    return undefined;
  }
  const { NodeSDK } = loaded;
  // Logs are not exported: metatools' logs go to stderr, and stdout carries MCP on stdio.
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? "metatools", logRecordProcessors: [] });
  sdk.start();
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      // An unreachable collector must not hold the process open.
      await Promise.race([sdk.shutdown().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
    },
  };
}
