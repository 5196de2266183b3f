import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection (or the wait ended). */
  closedAfterMs: number | null;
}

/** Parses the first HTTP/1.1 answer in `raw` (Content-Length framed). */
export const parseAnswer = (raw: string): Omit<RawAnswer, 'closedAfterMs'> | null => {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4) };
};

/**
 * Sends `head` (and optionally body chunks on a schedule) over a real TCP socket and collects
 * what the server answers, until it closes the connection or `waitMs` passes.
 */
export const rawRequest = (
  baseUrl: string,
  head: string | Buffer,
  options: { chunks?: (string | Buffer)[]; everyMs?: number; waitMs?: number } = {},
): Promise<RawAnswer & { raw: string }> => {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(url.port), url.hostname);
    let raw = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearInterval(timer);
      clearTimeout(waitTimer);
      socket.destroy();
      const a = parseAnswer(raw) ?? { status: 0, headers: {}, body: '' };
      resolve({ ...a, raw, closedAfterMs: closed ? Date.now() - started : null });
    };
    const waitTimer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    socket.on('data', (d) => (raw += d.toString('latin1')));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.write(head);
    const chunks = [...(options.chunks ?? [])];
    if (chunks.length) {
      timer = setInterval(() => {
        const c = chunks.shift();
        if (c === undefined || socket.destroyed) clearInterval(timer);
        else socket.write(c);
      }, options.everyMs ?? 1000);
    }
  });
};

/** An open socket that sent nothing (or only part of a request), for connection-count tests. */
export const openSocket = (baseUrl: string): Promise<net.Socket> => {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(url.port), url.hostname, () => resolve(s));
    s.once('error', reject);
  });
};
