import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
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
    setHeaders: (reply) => {
      void reply.headers({
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-cache',
      });
    },
  });
  return root;
};
