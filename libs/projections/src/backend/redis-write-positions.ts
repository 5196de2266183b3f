import { type RedisClient } from '../redis/connection';

/** Keeps the greatest write position per API key, so a read on any replica waits for it. */
const NOTE_WRITE_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if cur == false or tonumber(cur) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
`;

const KEEP_MS = 24 * 3600 * 1000;

const writeKey = (prefix: string, keyId: string): string => `${prefix}:rw:${keyId}`;

export const noteWritePosition = async (
  client: RedisClient,
  prefix: string,
  keyId: string,
  position: bigint,
): Promise<void> => {
  await client.eval(NOTE_WRITE_SCRIPT, {
    keys: [writeKey(prefix, keyId)],
    arguments: [position.toString(), String(KEEP_MS)],
  });
};

export const readWritePosition = async (
  client: RedisClient,
  prefix: string,
  keyId: string,
): Promise<bigint | null> => {
  const raw = await client.get(writeKey(prefix, keyId));
  return raw === null ? null : BigInt(raw);
};
