/**
 * A refused request costs the server its headers and a 429, nothing more: a flood of large POSTs
 * by a tenant whose bucket is empty is refused before any body is read or parsed and before any
 * handler runs, while another tenant's calls keep answering 200. Counted, never timed: the
 * flooder's bucket holds exactly 3 tokens that never come back (0.001/s), so exactly 3 bodies
 * may be parsed.
 */
import http from 'node:http';
import net from 'node:net';
import { clientFor } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { describeWithRedis, randomPrefix, TEST_REDIS_URL } from '@arbor/projections/testing/redis';

const BODY_BYTES = 256 * 1024;
const LOOPS = 8;
const PER_LOOP = 10;

/** A sample of a Prometheus text exposition, summed over the series that match `labels`. */
const metric = (text: string, name: string, labels: Record<string, string> = {}): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

/** POST with a body of `BODY_BYTES`, on its own connection; the status, or 0 if the socket closed first. */
const largeBody = (id: string): string =>
  JSON.stringify({ id, metadata: { pad: 'x'.repeat(BODY_BYTES) } });

const postLarge = (base: string, key: string, id: string): Promise<number> =>
  new Promise((resolve) => {
    const body = largeBody(id);
    const u = new URL(base);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/v1/conversations',
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    // The server may answer 429 and close before taking the whole body (Connection: close).
    req.on('error', () => resolve(0));
    req.end(body);
  });

/** Sends the head of a POST announcing a 1 MB body, never the body; resolves with the answer's status line. */
const headOnly = (base: string, key: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const u = new URL(base);
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write(
        `POST /v1/conversations HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n',
      );
    });
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) {
        s.destroy();
        resolve(got.slice(0, got.indexOf('\r\n')));
      }
    });
    s.on('error', reject);
  });

const suite = (label: string, env: () => Record<string, string>) => {
  describe(`a refused flood is not read (${label})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(env());
    });
    afterAll(async () => {
      await h.destroy();
    });

    it("reads no refused body and runs no handler for it, while the other tenant's calls answer 200", async () => {
      const admin = clientFor(h, ADMIN_KEY);
      const flooder = await h.createTenant('flooder');
      const victim = await h.createTenant('victim');
      await admin.put(`/v1/tenants/${flooder.id}/limits`, {
        limit: { ratePerSecond: 0.001, burst: 3 },
      });
      const v = clientFor(h, victim.apiKey);
      const vid = await v.start();
      const scrape = async () => (await h.call('GET', '/metrics', { key: ADMIN_KEY })).text;
      const before = await scrape();

      let flooding = true;
      const victimStatuses: number[] = [];
      const victimLoop = (async () => {
        while (flooding || victimStatuses.length < 5) {
          victimStatuses.push((await v.get(v.conv(vid))).status);
        }
      })();
      const floodStatuses = (
        await Promise.all(
          Array.from({ length: LOOPS }, async (_, loop) => {
            const statuses: number[] = [];
            for (let i = 0; i < PER_LOOP; i++) {
              statuses.push(await postLarge(h.baseUrl, flooder.apiKey, `flood-${loop}-${i}`));
            }
            return statuses;
          }),
        )
      ).flat();
      flooding = false;
      await victimLoop;
      const after = await scrape();

      const admitted = floodStatuses.filter((s) => s === 201);
      expect(admitted).toHaveLength(3);
      expect(floodStatuses.filter((s) => s !== 201 && s !== 429 && s !== 0)).toEqual([]);
      // Every other request was refused: the server counted LOOPS × PER_LOOP - 3 refusals.
      const refused = (text: string) =>
        metric(text, 'arbor_rate_limited_total', { tenant: flooder.id });
      expect(refused(after) - refused(before)).toBe(LOOPS * PER_LOOP - 3);
      // Bodies read and parsed: the 3 admitted ones, nothing of the refused (the victim sent none).
      const bodyBytes = (text: string) => metric(text, 'arbor_http_request_body_bytes_total');
      // (Every id is `flood-<loop>-<i>`, one digit each: every body has the same length.)
      const oneBody = Buffer.byteLength(largeBody('flood-0-0'));
      expect(bodyBytes(after) - bodyBytes(before)).toBe(3 * oneBody);
      // Handlers: the flooder owns exactly the 3 conversations it was admitted for.
      const list = await clientFor(h, flooder.apiKey).get('/v1/conversations');
      expect(list.status).toBe(429);
      const own = await admin.get(`/v1/admin/tenants/${flooder.id}/conversations`);
      expect(own.status).toBe(200);
      expect(own.body.items).toHaveLength(3);
      expect(new Set(victimStatuses)).toEqual(new Set([200]));
      // The bucket stays empty: a POST whose body never comes is still answered, with a 429 (the
      // answer does not wait for the body; reading it first would end in a 408 after
      // ARBOR_REQUEST_TIMEOUT_MS).
      expect(await headOnly(h.baseUrl, flooder.apiKey)).toMatch(/^HTTP\/1\.1 429 /);
    }, 60_000);
  });
};

suite('in memory', () => ({}));

describeWithRedis('refused flood, Redis buckets', () => {
  suite('Redis', () => ({
    REDIS_URL: TEST_REDIS_URL,
    ARBOR_REDIS_PREFIX: randomPrefix('rlflood'),
  }));
});
