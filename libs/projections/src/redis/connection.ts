import { createClient, createCluster } from 'redis';

// One node or a cluster behind one narrow client; what a cluster changes: README ("Connections").

type NodeClient = ReturnType<typeof createClient>;

type CommandName =
  | 'get'
  | 'set'
  | 'mGet'
  | 'del'
  | 'exists'
  | 'hGet'
  | 'hmGet'
  | 'hGetAll'
  | 'hLen'
  | 'lRange'
  | 'lLen'
  | 'lIndex'
  | 'zRange'
  | 'zRangeWithScores'
  | 'zAdd'
  | 'zRemRangeByScore'
  | 'zCard'
  | 'zRem'
  | 'type'
  | 'unlink'
  | 'publish'
  | 'eval';
export type RedisCommands = Pick<NodeClient, CommandName>;
const COMMANDS: readonly CommandName[] = [
  'get',
  'set',
  'mGet',
  'del',
  'exists',
  'hGet',
  'hmGet',
  'hGetAll',
  'hLen',
  'lRange',
  'lLen',
  'lIndex',
  'zRange',
  'zRangeWithScores',
  'zAdd',
  'zRemRangeByScore',
  'zCard',
  'zRem',
  'type',
  'unlink',
  'publish',
  'eval',
];

export type RedisTarget = { kind: 'node'; url: string } | { kind: 'cluster'; urls: string[] };

/** A connection for SUBSCRIBE (a subscribed single-node connection runs no other command). */
export interface RedisSubscriber {
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** Runs after the connection came back (messages may have been lost meanwhile). */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

export interface RedisClient extends RedisCommands {
  readonly target: RedisTarget;
  /** A raw command; on a cluster sent to the master of `key` (EVAL/EVALSHA: their first key). */
  sendCommand(args: string[], key?: string): Promise<unknown>;
  scanKeys(pattern: string): Promise<string[]>;
  subscriber(): Promise<RedisSubscriber>;
  connect(): Promise<void>;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  onError(listener: (error: unknown) => void): void;
  close(): Promise<void>;
}

export interface RedisConnectOptions {
  /** While disconnected a command fails at once (reads answer 503). Default true. */
  disableOfflineQueue?: boolean;
  /** Reconnect backoff cap (50 ms doubling, default 1000); null: node-redis's own. */
  maxReconnectDelayMs?: number | null;
  commandTimeoutMs?: number;
}

const routingKey = (args: readonly string[]): string | undefined => {
  const name = args[0]?.toUpperCase();
  if ((name === 'EVAL' || name === 'EVALSHA') && Number(args[2]) > 0) return args[3];
  return undefined;
};

const bindCommands = (raw: RedisCommands): RedisCommands => {
  const source = raw as unknown as Record<CommandName, (...a: unknown[]) => unknown>;
  const out: Partial<Record<CommandName, unknown>> = {};
  for (const name of COMMANDS) out[name] = source[name].bind(raw);
  return out as RedisCommands;
};

const scanNode = async (node: NodeClient, pattern: string, into: string[]): Promise<void> => {
  for await (const batch of node.scanIterator({ MATCH: pattern, COUNT: 500 })) into.push(...batch);
};

const nodeSubscriber = async (
  main: NodeClient,
  onError: (e: unknown) => void,
): Promise<RedisSubscriber> => {
  const sub = main.duplicate();
  const reconnected: (() => void)[] = [];
  let ready = false;
  // The subscriber's connection errors reach the client's own `onError` listeners.
  sub.on('error', onError);
  sub.on('ready', () => {
    // The first 'ready' is the connection itself; every later one a reconnection.
    if (ready) for (const l of reconnected) l();
    ready = true;
  });
  await sub.connect();
  return {
    subscribe: (channel, listener) => sub.subscribe(channel, listener),
    unsubscribe: (channel) => sub.unsubscribe(channel),
    onReconnect: (l) => reconnected.push(l),
    close: async () => {
      await sub.quit().catch(() => sub.destroy());
    },
  };
};

/** Not connected yet; a cluster's first URL's credentials and TLS apply to every node. */
export const createRedisClient = (
  target: RedisTarget,
  options: RedisConnectOptions = {},
): RedisClient => {
  const disableOfflineQueue = options.disableOfflineQueue ?? true;
  const cap = options.maxReconnectDelayMs === undefined ? 1000 : options.maxReconnectDelayMs;
  const reconnectStrategy =
    cap === null ? undefined : (retries: number) => Math.min(50 * 2 ** retries, cap);
  const commandOptions =
    options.commandTimeoutMs === undefined
      ? {}
      : { commandOptions: { timeout: options.commandTimeoutMs } };
  const errorListeners: ((e: unknown) => void)[] = [];
  const onError = (e: unknown) => {
    for (const l of errorListeners) l(e);
  };

  if (target.kind === 'node') {
    const raw: NodeClient = createClient({
      url: target.url,
      disableOfflineQueue,
      ...commandOptions,
      ...(reconnectStrategy === undefined ? {} : { socket: { reconnectStrategy } }),
    });
    raw.on('error', onError);
    return {
      ...bindCommands(raw),
      target,
      sendCommand: (args) => raw.sendCommand(args),
      scanKeys: async (pattern) => {
        const keys: string[] = [];
        await scanNode(raw, pattern, keys);
        return keys;
      },
      subscriber: () => nodeSubscriber(raw, onError),
      connect: async () => {
        await raw.connect();
      },
      get isOpen() {
        return raw.isOpen;
      },
      get isReady() {
        return raw.isReady;
      },
      onError: (l) => errorListeners.push(l),
      close: async () => {
        if (!raw.isOpen) return;
        await raw.quit().catch(() => raw.destroy());
      },
    };
  }

  const first = new URL(target.urls[0]);
  const cluster = createCluster({
    rootNodes: target.urls.map((url) => ({ url })),
    defaults: {
      disableOfflineQueue,
      ...commandOptions,
      ...(first.username !== '' ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password !== '' ? { password: decodeURIComponent(first.password) } : {}),
      socket: {
        ...(reconnectStrategy === undefined ? {} : { reconnectStrategy }),
        ...(first.protocol === 'rediss:' ? { tls: true } : {}),
      },
    },
  });
  cluster.on('error', onError);
  cluster.on('node-error', onError);
  const reconnected: (() => void)[] = [];
  // Any node back (the pub/sub one among them) may have missed messages: listeners look again.
  let readyOnce = false;
  cluster.on('node-ready', () => {
    if (readyOnce) for (const l of reconnected) l();
  });
  let closed = false;
  return {
    ...bindCommands(cluster as unknown as RedisCommands),
    target,
    sendCommand: (args, key) => cluster.sendCommand(key ?? routingKey(args), false, args),
    // To the channel's slot master: through any node, one publisher's messages could reorder.
    publish: (async (channel: string, message: string) => {
      // The node client itself: `cluster.sendCommand` spreads PUBLISH over the nodes too.
      const node = (await cluster.getNodeClientForKey(channel)) as unknown as NodeClient;
      return node.publish(channel, message);
    }) as RedisCommands['publish'],
    scanKeys: async (pattern) => {
      const keys: string[] = [];
      for (const master of cluster.masters) {
        const node = (await cluster.nodeClient(master)) as unknown as NodeClient;
        await scanNode(node, pattern, keys);
      }
      return keys;
    },
    // The cluster keeps a pub/sub connection of its own: no second cluster client needed.
    subscriber: () => {
      const subscribed = new Set<string>();
      return Promise.resolve({
        subscribe: async (channel: string, listener: (message: string) => void) => {
          subscribed.add(channel);
          await cluster.subscribe(channel, listener);
        },
        unsubscribe: async (channel: string) => {
          subscribed.delete(channel);
          await cluster.unsubscribe(channel);
        },
        onReconnect: (l: () => void) => reconnected.push(l),
        close: async () => {
          const channels = [...subscribed];
          subscribed.clear();
          if (channels.length > 0 && cluster.isOpen)
            await cluster.unsubscribe(channels).catch(() => undefined);
        },
      });
    },
    // A cluster's discovery fails once and stays closed (a node client retries by itself).
    connect: async () => {
      for (let retries = 0; ; retries++) {
        try {
          await cluster.connect();
          readyOnce = true;
          return;
        } catch (e) {
          if (closed) throw e;
          onError(e);
          const delay = reconnectStrategy?.(retries) ?? Math.min(50 * 2 ** retries, 2000);
          await new Promise((r) => setTimeout(r, delay));
          if (closed) throw e;
        }
      }
    },
    get isOpen() {
      return cluster.isOpen;
    },
    get isReady() {
      return cluster.isReady;
    },
    onError: (l) => errorListeners.push(l),
    close: async () => {
      closed = true;
      if (!cluster.isOpen) return;
      await cluster.close().catch(() => cluster.destroy());
    },
  };
};

export const connectRedis = async (
  target: RedisTarget,
  options: RedisConnectOptions = {},
): Promise<RedisClient> => {
  const client = createRedisClient(target, options);
  await client.connect();
  return client;
};
