import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** How far one projector partition is behind the log's head. */
export interface PartitionLag {
  /** Log positions between the partition's applied position and the head (SQLite: events). */
  events: number;
  /** Age of the oldest event not yet applied (0 when caught up). */
  seconds: number;
}

/** Reads a partition's lag at scrape time (the single-process projector registers partition "0"). */
export type LagSource = () => Promise<PartitionLag | null>;

/**
 * Every Prometheus metric of the process, in one registry of its own (not prom-client's global
 * one, so two apps in one process — tests — never share counters). Served as text by `GET
 * /metrics` (admin key) and on ARBOR_METRICS_PORT when set.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly lagSources = new Map<string, LagSource>();
  /** Lags pushed by a worker process (`reportProjectorLag`), kept until overwritten. */
  private readonly reportedLag = new Map<string, PartitionLag>();

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
  readonly leaseChanges = new Counter({
    name: 'arbor_projector_lease_changes_total',
    help: 'Projector partition leases taken over (single-process projector: none)',
    labelNames: ['partition'] as const,
    registers: [this.registry],
  });
  readonly redisErrors = new Counter({
    name: 'arbor_redis_errors_total',
    help: 'Errors from Redis, by client (read models, rate limits)',
    labelNames: ['client'] as const,
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
    const sources = this.lagSources;
    const reported = this.reportedLag;
    const read = async (): Promise<Map<string, PartitionLag>> => {
      const out = new Map(reported);
      for (const [partition, source] of sources) {
        const lag = await source().catch(() => null);
        if (lag !== null) out.set(partition, lag);
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
        for (const [partition, lag] of await read()) this.set({ partition }, lag.events);
      },
    });
    new Gauge({
      name: 'arbor_projector_lag_seconds',
      help: 'Age of the oldest event a projector partition has not applied yet (0: caught up)',
      labelNames: ['partition'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [partition, lag] of await read()) this.set({ partition }, lag.seconds);
      },
    });
    this.leaseChanges.inc({ partition: '0' }, 0);
    collectDefaultMetrics({ register: this.registry, prefix: 'arbor_process_' });
  }

  /** A partition's lag read at each scrape (the in-process projector registers "0"). */
  registerLagSource(partition: string, source: LagSource): () => void {
    this.lagSources.set(partition, source);
    return () => {
      if (this.lagSources.get(partition) === source) this.lagSources.delete(partition);
    };
  }

  /** For projector workers that push their lag instead (the workers' own loop calls this). */
  reportProjectorLag(partition: string, lag: PartitionLag): void {
    this.reportedLag.set(partition, lag);
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
