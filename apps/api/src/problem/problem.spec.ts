import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import {
  StoreFullError,
  StoreUnavailableError,
  WrongExpectedVersionError,
} from '@arbor/event-store';
import { AppError, APP_ERROR_CODES } from '@arbor/application';
import { Problem, PROBLEM_CODES, problemBodyOf } from './problem';
import { toProblem } from './problem.filter';

describe('problem details', () => {
  it('renders RFC 9457 fields with a stable code', () => {
    const body = new Problem('stale_tip', 'tip is m2', { tip: 'm2' }).body('/v1/conversations/c');
    expect(body).toEqual({
      type: 'https://arbor.dev/problems/stale-tip',
      title: PROBLEM_CODES.stale_tip.title,
      status: 409,
      code: 'stale_tip',
      detail: 'tip is m2',
      instance: '/v1/conversations/c',
      tip: 'm2',
    });
  });

  it("prefixes invalid_turn's violation paths with body., like validation_failed's errors", () => {
    const problem = toProblem(
      new AppError('invalid_turn', 'the turn breaks the turn rules', {
        violations: [
          { path: 'messages[1].content[0]', code: 'unanswered_tool_use', message: 'm' },
          { path: 'parentId', code: 'root_exists', message: 'm' },
        ],
      }),
    );
    expect(problem.body().violations).toEqual([
      { path: 'body.messages[1].content[0]', code: 'unanswered_tool_use', message: 'm' },
      { path: 'body.parentId', code: 'root_exists', message: 'm' },
    ]);
  });

  it('never lets an extension override the standard fields', () => {
    const body = new Problem('not_found', undefined, { status: 200, code: 'ok' }).body();
    expect(body.status).toBe(404);
    expect(body.code).toBe('not_found');
  });

  it.each([
    [new WrongExpectedVersionError('s', 1n, 2n), 409, 'concurrency_conflict'],
    [
      Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE' }),
      413,
      'payload_too_large',
    ],
    [
      new StoreFullError('sqlite SQLITE_FULL: database or disk is full'),
      507,
      'insufficient_storage',
    ],
    [new StoreUnavailableError('sqlite SQLITE_IOERR: disk I/O error'), 503, 'store_unavailable'],
    [Object.assign(new Error('x'), { code: 'SQLITE_FULL' }), 507, 'insufficient_storage'],
    [Object.assign(new Error('x'), { code: 'SQLITE_IOERR_WRITE' }), 503, 'store_unavailable'],
    [
      Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }),
      415,
      'unsupported_media_type',
    ],
    [Object.assign(new Error('x'), { code: 'FST_ERR_MAX_PARAM_LENGTH' }), 414, 'uri_too_long'],
    [Object.assign(new Error('x'), { code: 'FST_ERR_BAD_URL' }), 400, 'validation_failed'],
    [new NotFoundException(), 404, 'not_found'],
    [new PayloadTooLargeException(), 413, 'payload_too_large'],
    [new Error('boom'), 500, 'internal_error'],
  ])('maps %p to %d %s', (error, status, code) => {
    const p = toProblem(error);
    expect(p.status).toBe(status);
    expect(p.code).toBe(code);
  });

  it('does not leak internal messages in a 500', () => {
    expect(toProblem(new Error('secret path /etc/x')).body().detail).toBeUndefined();
  });

  it.each(APP_ERROR_CODES.map((c) => [c]))(
    'answers the application error %s with its catalogue status, detail and details',
    (code) => {
      const body = toProblem(new AppError(code, 'why', { extra: 1 })).body();
      expect(body).toMatchObject({
        code,
        status: PROBLEM_CODES[code].status,
        detail: 'why',
        extra: 1,
      });
    },
  );

  it('leaves detail out when the application error has none', () => {
    expect(toProblem(new AppError('conversation_not_found')).body().detail).toBeUndefined();
  });

  it('renders an error value carried in an answer as a problem body', () => {
    expect(
      problemBodyOf({ code: 'context_mismatch', detail: 'd', reason: 'body_differs' }),
    ).toEqual({
      type: 'https://arbor.dev/problems/context-mismatch',
      title: PROBLEM_CODES.context_mismatch.title,
      status: 409,
      code: 'context_mismatch',
      detail: 'd',
      reason: 'body_differs',
    });
  });
});
