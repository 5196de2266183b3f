/**
 * The committed types are the generator's output for today's contract, and they are precise:
 * no message, block, request or answer type falls back to `unknown` or `never`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Answer, type Block, type Message, type ProblemOf } from '../src';

/** Compile-time: fails `tsc` when `T` is `any`, `unknown` or `never`. */
type Precise<T> = [T] extends [never] ? false : unknown extends T ? false : true;
const precise = <T>(ok: Precise<T>): Precise<T> => ok;

describe('generated client types', () => {
  const root = resolve(__dirname, '../../..');
  const committed = readFileSync(resolve(__dirname, '../src/openapi.ts'), 'utf8');

  it('match a fresh generation from @arbor/contract (run `npm run client:generate`)', () => {
    // A child process: the generator's dependencies are ESM-only, which jest cannot load.
    const fresh = execFileSync(
      process.execPath,
      ['-r', '@swc-node/register', 'scripts/client-generate.ts', '--stdout'],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    expect(fresh.length).toBeGreaterThan(100_000);
    expect(committed === fresh).toBe(true);
  });

  it('have no unknown or never in any schema or answer body', () => {
    const code = committed.replace(/\/\*\*[\s\S]*?\*\//g, '');
    const schemas = code.slice(code.indexOf('export interface components'));
    const componentSchemas = schemas.slice(0, schemas.indexOf('  responses: never;'));
    expect(componentSchemas.length).toBeGreaterThan(10_000);
    expect(componentSchemas.match(/\b(unknown|never|any)\b/g)).toBeNull();
    // In operations, `?: never` marks an absent parameter kind and headers are open by design;
    // every body (request, answer, problem) must be typed.
    const operations = code.slice(code.indexOf('export interface operations'));
    const lines = operations.split('\n');
    const loose = lines.filter(
      (line, i) =>
        /\b(unknown|never|any)\b/.test(line) &&
        !/^\s+(query|header|path|cookie|requestBody)\?: never;$/.test(line) &&
        !/^\s+\[name: string\]: unknown;$/.test(line) &&
        // A 204 has no body.
        !(line.trim() === 'content?: never;' && /^\s+204: \{$/.test(lines[i - 4])),
    );
    expect(loose).toEqual([]);
  });

  it('give precise types to messages, blocks, answers and problems (checked by tsc)', () => {
    const checks = [
      precise<Message>(true),
      precise<Block>(true),
      precise<Message['content'][number]>(true),
      precise<Extract<Block, { type: 'tool_use' }>['input'][string]>(true),
      precise<Answer<'commitTurn'>>(true),
      precise<Answer<'buildContext'>>(true),
      precise<Answer<'activeBranch'>['items'][number]>(true),
      precise<Answer<'reproduceContext'>['checks'][number]['recorded']>(true),
      precise<ProblemOf<'commitTurn'>>(true),
      precise<NonNullable<(ProblemOf<'commitTurn'> & { code: 'invalid_turn' })['violations']>>(
        true,
      ),
    ];
    expect(checks.every(Boolean)).toBe(true);
  });
});
