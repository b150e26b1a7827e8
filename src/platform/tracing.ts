/**
 * Optional OpenTelemetry tracing (OTEL_ENABLED=true) through the official Node SDK. Off by default;
 * the SDK and its instrumentations are imported only when it is on, so start-up stays fast. The
 * exporter follows the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL,
 * OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, ...). server.ts and worker.ts call this
 * before importing the modules it instruments (http, fastify, pg, ioredis).
 */
export interface Tracing {
  shutdown(): Promise<void>;
}

export async function startTracing(config: { OTEL_ENABLED: boolean }, serviceName: string): Promise<Tracing | undefined> {
  if (!config.OTEL_ENABLED) return undefined;
  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }, { IORedisInstrumentation }, { FastifyOtelInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@fastify/otel'),
  ]);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || serviceName,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => ['/healthz', '/readyz', '/metrics'].includes(req.url ?? '') }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
