import { createHash } from 'node:crypto';
import keySlot from 'cluster-key-slot';
import { type RedisClient } from './connection';

// Every script touches the keys of one hash slot (Redis Cluster refuses anything else).

/**
 * One conversation's part of a batch, in its slot. KEYS[1] its row (`…:conv`), KEYS[2] its
 * highest fencing token seen (`…:fence`), KEYS[3] its erasure marker, KEYS[4..] every other key
 * the commands touch (declared, all in the same slot). ARGV[1] the stored revision the batch was
 * computed from (`-1`: no row yet), ARGV[2] the writer's token (`''`: an unfenced rebuild), then
 * the commands as `<n> <cmd…>`. Returns 1, or an ARBOR_FENCED error and writes nothing.
 */
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

/**
 * A conversation's tenant-list entries, in the tenant's slot: KEYS the creation-order list, its
 * erased set, the activity and title orders; ARGV[1] the creation score (`''`: listed already),
 * ARGV[2] the id, ARGV[3..4] its activity/title members before (`''`: none), ARGV[5..6] now.
 * Never lists an erased one again; idempotent (a redelivered batch writes the same members).
 */
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
/**
 * A conversation erased, in its slot: KEYS[1] its `:erased` marker (set to ARGV[1]), KEYS[2..]
 * every other key it has (unlinked). Atomic: no reader sees half of it.
 */
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
/**
 * The checkpoint, in the control slot (KEYS[1] the checkpoint, KEYS[2] the generation marker,
 * KEYS[3] the lease or ''): refused unless the live generation is ARGV[1] (a missing marker —
 * Redis emptied — refuses too; ARGV[1] '' skips the check) and the lease holds ARGV[2].
 */
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

/** The Redis Cluster slot of a key (CRC16 of its hash tag, as `CLUSTER KEYSLOT` computes). */
export const slotOf = (key: string): number => keySlot(key);

/**
 * Runs a script by its SHA, loading it once when the server does not know it (NOSCRIPT). Every
 * key it touches is in `keys` (KEYS), and they must share one hash slot — checked here, so a
 * layout that would fail on Redis Cluster fails on a single node too.
 */
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
    // On a cluster: sent to the master of the (one) slot; a node that does not know the script
    // yet answers NOSCRIPT and gets it once.
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
