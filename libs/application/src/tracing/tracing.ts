import {
  type Attributes,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
} from '@opentelemetry/api';

// Traces only when the standard OTEL_* variables ask; off, the SDK is not even loaded. No content.

const TRACER = 'arbor';
let enabled = false;

export const tracingEnabled = (): boolean => enabled;

export const tracesWanted = (env: NodeJS.ProcessEnv): boolean => {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (exporters.includes('none')) return false;
  if (exporters.includes('otlp')) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
};

/** Starts tracing when `tracesWanted(env)`; returns its flushing shutdown, or null when off. */
export const startTracing = async (
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void = () => undefined,
): Promise<(() => Promise<void>) | null> => {
  if (!tracesWanted(env)) return null;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol !== 'http/json') {
    warn(`OTEL protocol ${protocol} is not supported here; traces are sent as http/json`);
  }
  const { BatchSpanProcessor, NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { detectResources, envDetector, resourceFromAttributes } =
    await import('@opentelemetry/resources');
  const resource = resourceFromAttributes({ 'service.name': 'arbor' }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  enabled = true;
  return async () => {
    enabled = false;
    await provider.shutdown();
  };
};

/** Runs `fn` in a span named `name` (a child of the active one); off: just `fn`. */
export const inSpan = async <T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> => {
  if (!enabled) return fn(null);
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: e instanceof Error ? e.name : 'error',
      });
      throw e;
    } finally {
      span.end();
    }
  });
};

export interface RequestSpan {
  run(next: () => void): void;
  end(route: string, status: number, tenantId: string | null): void;
}

export const startRequestSpan = (method: string, requestId: string): RequestSpan | null => {
  if (!enabled) return null;
  const span = trace.getTracer(TRACER).startSpan(method, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': method, 'arbor.request_id': requestId },
  });
  const ctx = trace.setSpan(context.active(), span);
  return {
    run: (next) => context.with(ctx, next),
    end: (route, status, tenantId) => {
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', status);
      if (tenantId !== null) span.setAttribute('arbor.tenant_id', tenantId);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
};
