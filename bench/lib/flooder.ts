/**
 * One flooding client process for bench/flood.bench.ts (its own process, so its CPU is not the
 * server's nor the victim's):
 *
 *   node -r @swc-node/register bench/lib/flooder.ts <baseUrl> <apiKey> <clients> <get|post> <bodyBytes>
 *
 * `clients` keep-alive loops, each sending its next request as soon as the last one is answered
 * (closed loop), until SIGTERM; then one JSON line on stdout: `{"answers": {status: count}}`.
 * `get`: `GET /v1/conversations`; `post`: `POST /v1/conversations` with a JSON body of about
 * `bodyBytes` bytes (sent whole: the server may answer before reading it).
 */
import http from 'node:http';

const [baseUrl, key, clientsArg, mode, bodyBytesArg] = process.argv.slice(2);
const url = new URL(baseUrl);
const clients = Number(clientsArg);
const body =
  mode === 'post'
    ? JSON.stringify({ metadata: { pad: 'x'.repeat(Math.max(0, Number(bodyBytesArg) - 30)) } })
    : undefined;
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const answers = new Map<number, number>();
let stop = false;

const once = (): Promise<void> =>
  new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: body === undefined ? 'GET' : 'POST',
        path: '/v1/conversations',
        headers,
        agent,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          answers.set(res.statusCode ?? 0, (answers.get(res.statusCode ?? 0) ?? 0) + 1);
          resolve();
        });
        res.on('error', () => resolve());
      },
    );
    req.on('error', () => {
      // A 429 answered with Connection: close before the body was sent whole: count it as 0.
      answers.set(0, (answers.get(0) ?? 0) + 1);
      resolve();
    });
    req.end(body);
  });

const loops = Array.from({ length: clients }, async () => {
  while (!stop) await once();
});

process.on('SIGTERM', () => {
  stop = true;
  void Promise.all(loops).then(() => {
    process.stdout.write(`${JSON.stringify({ answers: Object.fromEntries(answers) })}\n`);
    agent.destroy();
    process.exit(0);
  });
});
process.stdout.write('flooding\n');
