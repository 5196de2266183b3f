/** A keep-alive JSON client for setup calls and sequential latency probes. */
import http from 'node:http';

export interface JsonResponse<T = unknown> {
  status: number;
  body: T;
  /** Request to last response byte, milliseconds. */
  ms: number;
}

export interface JsonClient {
  call<T = unknown>(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown },
  ): Promise<JsonResponse<T>>;
  /** Like `call`, but a non-2xx answer throws with the problem body. */
  ok<T = unknown>(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown },
  ): Promise<T>;
  close(): void;
}

export const createJsonClient = (baseUrl: string, maxSockets = 8): JsonClient => {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const call = <T>(
    method: string,
    path: string,
    options: { key?: string; body?: unknown } = {},
  ): Promise<JsonResponse<T>> =>
    new Promise((resolve, reject) => {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      const headers: Record<string, string> = {};
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const t0 = process.hrtime.bigint();
      const req = http.request(
        { host: url.hostname, port: url.port, method, path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const ms = Number(process.hrtime.bigint() - t0) / 1e6;
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text === '' ? null : JSON.parse(text);
            } catch {
              // not JSON: keep the text
            }
            resolve({ status: res.statusCode ?? 0, body: body as T, ms });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  return {
    call,
    ok: async <T>(method: string, path: string, options?: { key?: string; body?: unknown }) => {
      const r = await call<T>(method, path, options);
      if (r.status < 200 || r.status >= 300) {
        throw new Error(`${method} ${path} → ${r.status}: ${JSON.stringify(r.body)}`);
      }
      return r.body;
    },
    close: () => agent.destroy(),
  };
};

export interface Tenant {
  id: string;
  apiKey: string;
}

export const createTenant = (client: JsonClient, adminKey: string, name: string): Promise<Tenant> =>
  client.ok<Tenant>('POST', '/v1/tenants', { key: adminKey, body: { name } });

export const createConversation = async (client: JsonClient, key: string): Promise<string> =>
  (await client.ok<{ id: string }>('POST', '/v1/conversations', { key, body: {} })).id;
