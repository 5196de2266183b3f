import { createHash } from 'node:crypto';
import keySlot from 'cluster-key-slot';
import { type RedisClient } from './connection';

// Every script touches the keys of one hash slot (Redis Cluster refuses anything else).

/** KEYS: row, fence, erased marker, the rest; ARGV: stored revision, token, `<n> <cmd…>`… */
export const APPLY_CONVERSATION_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local row = redis.call('GET', KEYS[1])
local stored = -1
if row then stored = cjson.decode(row).revision end
if stored ~= tonumber(ARGV[1]) then
  return redis.error_reply('ARBOR_FENCED ' .. KEYS[1] .. ' is at revision ' .. stored .. ', not ' .. ARGV[1])
end
if ARGV[2] ~= '' then
  local seen = tonumber(redis.call('GET', KEYS[2]) or '0')
  if seen > tonumber(ARGV[2]) then
    return redis.error_reply('ARBOR_FENCED token ' .. ARGV[2] .. ' is older than ' .. seen)
  end
  redis.call('SET', KEYS[2], ARGV[2])
end
local i = 3
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return 1
`;

/** KEYS: list, gone, activity, title; ARGV: score or '', id, members before, members now. */
export const LIST_UPDATE_SCRIPT = `
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return 0 end
if ARGV[1] ~= '' then redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) end
if ARGV[3] ~= '' and ARGV[3] ~= ARGV[5] then redis.call('ZREM', KEYS[3], ARGV[3]) end
if ARGV[4] ~= '' and ARGV[4] ~= ARGV[6] then redis.call('ZREM', KEYS[4], ARGV[4]) end
redis.call('ZADD', KEYS[3], 0, ARGV[5])
redis.call('ZADD', KEYS[4], 0, ARGV[6])
return 1
`;
/** Erased from the tenant list (KEYS as above; ARGV the id, its two members or ''): gone. */
export const LIST_REMOVE_SCRIPT = `
redis.call('SADD', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[3], ARGV[2]) end
if ARGV[3] ~= '' then redis.call('ZREM', KEYS[4], ARGV[3]) end
return redis.call('ZREM', KEYS[1], ARGV[1])
`;
/** KEYS[1] the `:erased` marker (set to ARGV[1]), KEYS[2..] unlinked: no reader sees half. */
export const ERASE_CONVERSATION_SCRIPT = `
for i = 2, #KEYS do redis.call('UNLINK', KEYS[i]) end
redis.call('SET', KEYS[1], ARGV[1])
return 1
`;
/** A fork's entry on its source (KEYS: forks, forksgone, the source's erasure marker). */
export const FORK_ADD_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
`;
export const FORK_REMOVE_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('SADD', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`;
/** KEYS: checkpoint, marker, lease; refused unless generation ARGV[1] and lease ARGV[2] hold. */
export const CHECKPOINT_SCRIPT = `
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('ARBOR_GENERATION the live generation is not ' .. ARGV[1])
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[2] then
  return redis.error_reply('ARBOR_FENCED the lease ' .. KEYS[3] .. ' is not held by ' .. ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[3])
`;

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

export const slotOf = (key: string): number => keySlot(key);

/** EVALSHA, EVAL on NOSCRIPT; one slot checked here, so a single node fails as a cluster would. */
export const runScript = async (
  client: RedisClient,
  script: string,
  keys: readonly string[],
  args: readonly string[],
  sha = sha1(script),
): Promise<unknown> => {
  const slots = new Set(keys.map(slotOf));
  if (slots.size > 1) {
    throw new Error(`a script would touch ${slots.size} hash slots: ${keys.join(', ')}`);
  }
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await client.sendCommand(['EVALSHA', sha, ...tail], keys[0]);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('NOSCRIPT')) {
      return client.sendCommand(['EVAL', script, ...tail], keys[0]);
    }
    throw e;
  }
};

export const APPLY_SHA = sha1(APPLY_CONVERSATION_SCRIPT);
export const LIST_UPDATE_SHA = sha1(LIST_UPDATE_SCRIPT);
export const LIST_REMOVE_SHA = sha1(LIST_REMOVE_SCRIPT);
export const FORK_ADD_SHA = sha1(FORK_ADD_SCRIPT);
export const FORK_REMOVE_SHA = sha1(FORK_REMOVE_SCRIPT);
export const CHECKPOINT_SHA = sha1(CHECKPOINT_SCRIPT);
export const ERASE_SHA = sha1(ERASE_CONVERSATION_SCRIPT);
