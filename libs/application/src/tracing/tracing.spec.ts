import { tracesWanted } from './tracing';

describe('tracesWanted (the standard OTEL_* variables)', () => {
  it('is off when nothing is set, on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp', () => {
    expect(tracesWanted({})).toBe(false);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' })).toBe(true);
    expect(tracesWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  });

  it('is off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracesWanted({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracesWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracesWanted({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});
