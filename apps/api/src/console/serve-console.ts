import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * Where `npm run build` writes the console (apps/console → dist/console). From the built server
 * (dist/apps/api/src/console) and from the sources (apps/api/src/console) alike; ARBOR_CONSOLE_DIR
 * names another build of it (the browser tests build their own, so a parallel `npm run build`
 * emptying dist/ cannot take it away mid-test).
 */
export const consoleDirs = (): string[] => [
  ...(process.env.ARBOR_CONSOLE_DIR ? [path.resolve(process.env.ARBOR_CONSOLE_DIR)] : []),
  path.resolve(__dirname, '..', '..', '..', '..', 'console'),
  path.resolve(__dirname, '..', '..', '..', '..', 'dist', 'console'),
];

/** Only what the console needs: its own files, the API on the same origin, images as data: URIs. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The same for Swagger UI at /docs, but for styles: its page template carries inline `<style>`
 * blocks and a `style` attribute, which `'self'` alone would drop. Scripts stay own files only.
 */
const DOCS_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

const headersWith = (csp: string): Record<string, string> => ({
  'content-security-policy': csp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
});

/** /docs and every file under it (the UI's scripts, styles, the JSON document) get them too. */
export const protectDocs = (fastify: FastifyInstance): void => {
  const headers = headersWith(DOCS_CSP);
  fastify.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0];
    if (path === '/docs' || path.startsWith('/docs/')) void reply.headers(headers);
    done();
  });
};

/** A build from before source maps were left out may still hold one: never served. */
const isSourceMap = (pathname: string): boolean => pathname.endsWith('.map');

/**
 * Serves the operator console's static files at /console/ (a client of the public API only; no
 * route of its own). Without a build, /console/ answers 404 like any unknown path.
 */
export const serveConsole = async (app: NestFastifyApplication): Promise<string | null> => {
  const root = consoleDirs().find((d) => fs.existsSync(path.join(d, 'index.html'))) ?? null;
  if (root === null) return null;
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    index: ['index.html'],
    redirect: true,
    wildcard: true,
    cacheControl: false,
    allowedPath: (pathname) => !isSourceMap(pathname),
    setHeaders: (reply) => {
      void reply.headers(headersWith(CSP));
    },
  });
  return root;
};
