import http from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { ARBOR_CONFIG, type ArborConfig, MetricsService } from '@arbor/application';

/**
 * ARBOR_METRICS_PORT: `GET /metrics` on a port of its own, without credentials (for a scraper on
 * a private network; bound to HOST like the API). Anything else there is 404.
 */
@Injectable()
export class MetricsPort implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Metrics');
  private server: http.Server | null = null;

  constructor(
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** The port it listens on (0 in the config picks a free one), null when off. */
  port(): number | null {
    const a = this.server?.address();
    return a && typeof a === 'object' ? a.port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === null) return;
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      this.metrics.text().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.contentType }).end(text),
        (e: unknown) => {
          this.logger.error(`metrics: ${String(e)}`);
          res.writeHead(500, { 'content-type': 'text/plain' }).end('error\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort as number, this.config.host, () => resolve());
    });
    this.server = server;
  }

  async onModuleDestroy(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
