import { InvalidStreamNameError } from './errors';

/**
 * Stream names put the tenant in every stream id: `<category>-<tenantId>.<entityId>`.
 * Ids are restricted to `[A-Za-z0-9_-]`, so the `.` separator can never appear inside an id and
 * two different (tenant, entity) pairs can never produce the same stream name.
 */
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const CATEGORY = /^[a-z][a-z0-9]{0,31}$/;

export const isValidId = (id: string): boolean => ID.test(id);

export const assertValidId = (id: string, what = 'id'): string => {
  if (!isValidId(id)) {
    throw new InvalidStreamNameError(
      `${what} must be 1-128 characters of [A-Za-z0-9_-], got ${JSON.stringify(id)}`,
    );
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
  const m = /^([a-z][a-z0-9]{0,31})-([A-Za-z0-9_-]{1,128})\.([A-Za-z0-9_-]{1,128})$/.exec(name);
  return m ? { category: m[1], tenantId: m[2], entityId: m[3] } : null;
};

/** The prefix matching every stream of one tenant in one category (for `$all` filters). */
export const tenantStreamPrefix = (category: string, tenantId: string): string =>
  `${category}-${assertValidId(tenantId, 'tenant id')}.`;

/** A conversation's stream. */
export const conversationStream = (tenantId: string, conversationId: string): string =>
  streamName({ category: 'conv', tenantId, entityId: conversationId });
