/**
 * OTLP export from the CLI: with `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set,
 * the CLI registers an OpenTelemetry SDK that exports over OTLP/HTTP, and traces its hosts' MCP clients and
 * its agents (agentforge/otel). The SDK packages are optional: they are imported only then, and when they are
 * not installed one line says so and the command runs untraced. Everything is flushed before the CLI exits.
 */
import type { ClientConnectorOptions } from '../agent/connect.js';
import type { AgentTracing } from '../agent/tracing.js';
import type { GatewayOptions } from '../gateway/gateway.js';

const SDK_PACKAGES = ['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http'] as const;

interface Telemetry {
  readonly connector: ClientConnectorOptions;
  readonly tracing: AgentTracing;
  readonly gateway: Pick<GatewayOptions, 'aroundRequest' | 'upstreamMiddleware'>;
  shutdown(): Promise<void>;
}

let active: Telemetry | undefined;

/** What the SDK modules must provide; checked loosely, as they are loaded by name at run time. */
interface SdkModules {
  NodeTracerProvider: new (config: {
    spanProcessors: unknown[];
  }) => {
    register(): void;
    shutdown(): Promise<void>;
  };
  BatchSpanProcessor: new (exporter: unknown) => unknown;
  OTLPTraceExporter: new () => unknown;
}

async function loadSdk(): Promise<SdkModules | undefined> {
  try {
    const [node, otlp] = await Promise.all(SDK_PACKAGES.map((name) => import(name)));
    return { ...node, ...otlp } as SdkModules;
  } catch {
    return undefined;
  }
}

/** Starts export when the environment asks for it; `warn` gets the one line when the SDK is missing. */
export async function startTelemetry(env: NodeJS.ProcessEnv, warn: (line: string) => void): Promise<void> {
  if (active || !(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return;
  if (env.OTEL_SDK_DISABLED === 'true') return;
  const sdk = await loadSdk();
  // agentforge/otel itself needs @opentelemetry/api, which the SDK packages bring.
  const otel = sdk ? await import('../otel/index.js').catch(() => undefined) : undefined;
  if (!sdk || !otel) {
    warn(
      `agentforge: OTEL_EXPORTER_OTLP_ENDPOINT is set but ${SDK_PACKAGES.join(' and ')} are not installed; not exporting traces (npm install ${SDK_PACKAGES.join(' ')})`,
    );
    return;
  }
  // The exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) itself.
  const provider = new sdk.NodeTracerProvider({
    spanProcessors: [new sdk.BatchSpanProcessor(new sdk.OTLPTraceExporter())],
  });
  provider.register();
  active = {
    connector: { middleware: [otel.clientTracing()] },
    tracing: otel.agentTracing(),
    gateway: otel.gatewayTracing(),
    shutdown: () => provider.shutdown(),
  };
}

/** The host's client options while exporting (each client's requests traced), else none. */
export function telemetryConnector(): ClientConnectorOptions | undefined {
  return active?.connector;
}

/** `AgentOptions.tracing` while exporting. */
export function agentTracingOption(): { tracing?: AgentTracing } {
  return active ? { tracing: active.tracing } : {};
}

/** `agentforge gateway`'s SERVER and upstream CLIENT spans while exporting, else none. */
export function gatewayTracingOptions(): Pick<GatewayOptions, 'aroundRequest' | 'upstreamMiddleware'> {
  return active?.gateway ?? {};
}

/** Flushes what is still buffered; the CLI calls it before it exits. */
export async function stopTelemetry(): Promise<void> {
  const telemetry = active;
  active = undefined;
  await telemetry?.shutdown().catch(() => undefined);
}
