import { ID_PATTERN, ID_RULE, ID_SOURCE } from '@arbor/domain/ids';
import { InvalidStreamNameError } from './errors';

/** `<category>-<tenantId>.<entityId>`; ids exclude `.`, so two (tenant, entity) pairs never collide. */
const CATEGORY = /^[a-z][a-z0-9]{0,31}$/;
const STREAM_NAME = new RegExp(`^([a-z][a-z0-9]{0,31})-(${ID_SOURCE})\\.(${ID_SOURCE})$`);

export const isValidId = (id: string): boolean => ID_PATTERN.test(id);

export const assertValidId = (id: string, what = 'id'): string => {
  if (!isValidId(id)) {
    throw new InvalidStreamNameError(`${what} ${ID_RULE}, got ${JSON.stringify(id)}`);
  }
  return id;
};

export interface StreamNameParts {
  category: string;
  tenantId: string;
  entityId: string;
}

export const streamName = ({ category, tenantId, entityId }: StreamNameParts): string => {
  if (!CATEGORY.test(category)) {
    throw new InvalidStreamNameError(`invalid stream category ${JSON.stringify(category)}`);
  }
  return `${category}-${assertValidId(tenantId, 'tenant id')}.${assertValidId(entityId, 'entity id')}`;
};

export const parseStreamName = (name: string): StreamNameParts | null => {
  const m = STREAM_NAME.exec(name);
  return m ? { category: m[1], tenantId: m[2], entityId: m[3] } : null;
};

/** The prefix matching every stream of one tenant in one category (for `$all` filters). */
export const tenantStreamPrefix = (category: string, tenantId: string): string =>
  `${category}-${assertValidId(tenantId, 'tenant id')}.`;

export const conversationStream = (tenantId: string, conversationId: string): string =>
  streamName({ category: 'conv', tenantId, entityId: conversationId });
