import { InvalidStreamNameError } from './errors';
import {
  conversationStream,
  parseStreamName,
  streamName,
  tenantStreamPrefix,
} from './stream-names';

describe('stream names', () => {
  it('puts the tenant in every stream id', () => {
    expect(conversationStream('t1', 'c1')).toBe('conv-t1.c1');
    expect(parseStreamName('conv-t1.c1')).toEqual({
      category: 'conv',
      tenantId: 't1',
      entityId: 'c1',
    });
    expect(tenantStreamPrefix('conv', 't1')).toBe('conv-t1.');
  });

  it.each(['a.b', '', 'x/y', '../etc', 'a b', 'é', 'x'.repeat(129)])(
    'refuses id %j that could collide or escape',
    (bad) => {
      expect(() => conversationStream(bad, 'c')).toThrow(InvalidStreamNameError);
      expect(() => conversationStream('t', bad)).toThrow(InvalidStreamNameError);
    },
  );

  it('never maps two (tenant, entity) pairs to one name', () => {
    // With "." allowed inside ids, ("a.b","c") and ("a","b.c") would both be "conv-a.b.c".
    expect(() => streamName({ category: 'conv', tenantId: 'a.b', entityId: 'c' })).toThrow();
    expect(() => streamName({ category: 'conv', tenantId: 'a', entityId: 'b.c' })).toThrow();
  });
});
