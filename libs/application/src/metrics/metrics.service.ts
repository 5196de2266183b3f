import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface PartitionLag {
  events: number;
  seconds: number;
}

export type LagSource = () => Promise<ReadonlyMap<string, PartitionLag>>;

export type LeaseSource = () => Promise<ReadonlyMap<string, number>>;

/** A registry of its own (not prom-client's global one), so two apps in one process never share. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly lagSources = new Set<LagSource>();
  private readonly leaseSources = new Set<LeaseSource>();

  readonly httpRequests = new Counter({
    name: 'arbor_http_requests_total',
    help: 'HTTP answers by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'arbor_http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly turnCommits = new Counter({
    name: 'arbor_turn_commits_total',
    help: 'Turns committed by this process (replayed: a turnId retry answered without a write)',
    labelNames: ['replayed'] as const,
    registers: [this.registry],
  });
  readonly leaseChanges: Counter<'partition'>;
  readonly redisErrors = new Counter({
    name: 'arbor_redis_errors_total',
    help: 'Errors from Redis, by client (read models, rate limits)',
    labelNames: ['client'] as const,
    registers: [this.registry],
  });
  readonly bodyBytes = new Counter({
    name: 'arbor_http_request_body_bytes_total',
    help: 'Bytes of request bodies read and parsed (JSON)',
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'arbor_rate_limited_total',
    help: 'Requests refused 429 rate_limited, by tenant',
    labelNames: ['tenant'] as const,
    registers: [this.registry],
  });
  readonly rungsApplied = new Counter({
    name: 'arbor_ladder_rungs_applied_total',
    help: 'Context-ladder rungs applied to contexts handed out, by rung',
    labelNames: ['rung'] as const,
    registers: [this.registry],
  });

  constructor() {
    const lagSources = this.lagSources;
    const leaseSources = this.leaseSources;
    const read = async <T>(
      sources: Set<() => Promise<ReadonlyMap<string, T>>>,
    ): Promise<Map<string, T>> => {
      const out = new Map<string, T>();
      for (const source of sources) {
        // A source that cannot answer (Redis unreachable) leaves its partitions out of the scrape.
        const got = await source().catch(() => null);
        if (got !== null) for (const [k, v] of got) out.set(k, v);
      }
      return out;
    };
    new Gauge({
      name: 'arbor_projector_lag_events',
      help: "Log positions between a projector partition's applied position and the head",
      labelNames: ['partition'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [partition, lag] of await read(lagSources)) this.set({ partition }, lag.events);
      },
    });
    new Gauge({
      name: 'arbor_projector_lag_seconds',
      help: 'Age of the oldest event a projector partition has not applied yet (0: caught up)',
      labelNames: ['partition'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [partition, lag] of await read(lagSources)) this.set({ partition }, lag.seconds);
      },
    });
    this.leaseChanges = new Counter({
      name: 'arbor_projector_lease_changes_total',
      help: 'Projector partition leases granted (with Redis: the fencing token; every takeover adds one)',
      labelNames: ['partition'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [partition, n] of await read(leaseSources)) this.inc({ partition }, n);
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'arbor_process_' });
  }

  registerLagSource(source: LagSource): () => void {
    this.lagSources.add(source);
    return () => this.lagSources.delete(source);
  }

  registerLeaseSource(source: LeaseSource): () => void {
    this.leaseSources.add(source);
    return () => this.leaseSources.delete(source);
  }

  countTurn(replayed: boolean): void {
    this.turnCommits.inc({ replayed: String(replayed) });
  }

  countRungs(rungs: readonly { rung: string; applied: boolean }[]): void {
    for (const r of rungs) if (r.applied) this.rungsApplied.inc({ rung: r.rung });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
