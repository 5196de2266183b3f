import {
  StreamNotFoundError as EsdbStreamNotFoundError,
  UnavailableError as EsdbUnavailableError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  InvalidEventError,
  StoreUnavailableError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../errors';
import { toStoreError } from './esdb-errors';

const clientWrongVersion = (current: bigint | 'no_stream') =>
  new EsdbWrongExpectedVersionError(undefined, {
    streamName: 'conv-t1.c1',
    expected: 3n,
    current,
  });

describe('toStoreError', () => {
  it('maps the client WrongExpectedVersionError, keeping our expected and the actual revision', () => {
    const mapped = toStoreError(clientWrongVersion(5n), {
      streamName: 'conv-t1.c1',
      expected: 'no_stream',
    });
    expect(mapped).toBeInstanceOf(WrongExpectedVersionError);
    expect(mapped).toMatchObject({ streamName: 'conv-t1.c1', expected: 'no_stream', actual: 5n });
  });

  it("reports actual 'no_stream' when the server reports no stream", () => {
    const mapped = toStoreError(clientWrongVersion('no_stream'), { expected: 0n });
    expect(mapped).toMatchObject({ streamName: 'conv-t1.c1', expected: 0n, actual: 'no_stream' });
  });

  it('maps the client StreamNotFoundError to ours, named by our stream', () => {
    const mapped = toStoreError(new EsdbStreamNotFoundError(undefined, 'conv-t1.c1'), {
      streamName: 'conv-t1.c1',
    });
    expect(mapped).toBeInstanceOf(StreamNotFoundError);
    expect((mapped as StreamNotFoundError).streamName).toBe('conv-t1.c1');
  });

  it('passes the port errors through unchanged', () => {
    const ours = new InvalidEventError('bad');
    expect(toStoreError(ours)).toBe(ours);
  });

  it('turns everything else into StoreUnavailableError with the cause kept', () => {
    const unavailable = new EsdbUnavailableError(undefined, 'connection refused');
    const mapped = toStoreError(unavailable);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect(mapped.message).toMatch(/connection refused/);
    expect(mapped.cause).toBe(unavailable);
    expect(toStoreError('boom')).toBeInstanceOf(StoreUnavailableError);
  });
});
