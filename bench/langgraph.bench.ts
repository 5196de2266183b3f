/**
 * `npm run bench:langgraph`: the storage a LangGraph checkpointer needs for one agent thread,
 * ArborSaver against LangGraph's in-memory saver (`MemorySaver`, which keeps the serialized
 * whole state per checkpoint) measured in the same run, with LangGraph's Postgres layout
 * computed beside it (per checkpoint: the checkpoint row without values, one blob per channel
 * that changed — the whole value, so the whole message list — and the writes).
 *
 * The loop: an agent node answering with a tool call and a tool node answering it (each
 * superstep adds one message of ~120–360 bytes), no model in between (the model is not what is
 * measured), until the thread holds 50, 200 and 500 checkpoints (three user inputs).
 *
 *   ours: the JSON of every event of the thread's two conversations as `GET …/events` answers
 *         it (message bodies, records, hash chain) — and the data directory on disk, for scale.
 *
 *   npm run bench:langgraph -- [--steps 50,200,500]
 */
import fs from 'node:fs';
import path from 'node:path';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import {
  type BaseCheckpointSaver,
  END,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import {
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type PendingWrite,
} from '@langchain/langgraph-checkpoint';
import { type RunnableConfig } from '@langchain/core/runnables';
import { ArborClient } from '@arbor/client';
import { ArborSaver } from '@arbor/langgraph';
import { startHarness } from '../test/support/harness';
import { flagValue, fmt, machineLine, ratio, section, table, verdictLines } from './lib/report';

const STEPS = (flagValue(process.argv.slice(2), 'steps') ?? '50,200,500').split(',').map(Number);

/** MemorySaver, also counting what LangGraph's Postgres saver would store for the same calls. */
class CountingMemorySaver extends MemorySaver {
  postgresBytes = 0;
  private async size(v: unknown) {
    return (await this.serde.dumpsTyped(v))[1].byteLength;
  }
  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions = {},
  ) {
    const { channel_values: values, ...row } = checkpoint;
    this.postgresBytes += (await this.size(row)) + (await this.size(metadata));
    for (const channel of Object.keys(newVersions))
      this.postgresBytes += await this.size((values as Record<string, unknown>)[channel]);
    return super.put(config, checkpoint, metadata);
  }
  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ) {
    for (const [, v] of writes) this.postgresBytes += await this.size(v);
    return super.putWrites(config, writes, taskId, taskPath);
  }
  /** Bytes this saver holds: every serialized checkpoint, its metadata, every write. */
  held(): { bytes: number; checkpoints: number; last: number } {
    let bytes = 0;
    let checkpoints = 0;
    let last = 0;
    for (const byNs of Object.values(this.storage))
      for (const byId of Object.values(byNs))
        for (const id of Object.keys(byId).sort()) {
          const [cp, meta] = byId[id];
          last = cp.byteLength + meta.byteLength;
          bytes += last;
          checkpoints++;
        }
    for (const byTask of Object.values(this.writes))
      for (const w of Object.values(byTask)) bytes += w[2].byteLength;
    return { bytes, checkpoints, last };
  }
}

const filler = (i: number, n: number) =>
  `step ${i}: ${'lorem ipsum dolor sit amet '.repeat(n)}`.trim();

/** The loop graph: `agent` calls `lookup` until the thread holds `stopAt.value` messages. */
const loopGraph = (checkpointer: BaseCheckpointSaver, stopAt: { value: number }) =>
  new StateGraph(MessagesAnnotation)
    .addNode('agent', (state) => {
      const i = state.messages.length;
      if (i + 1 >= stopAt.value)
        return { messages: [new AIMessage({ id: `ai-${i}`, content: filler(i, 3) })] };
      return {
        messages: [
          new AIMessage({
            id: `ai-${i}`,
            content: filler(i, 2),
            tool_calls: [{ id: `call_${i}`, name: 'lookup', args: { query: `item ${i}` } }],
          }),
        ],
      };
    })
    .addNode('tools', (state) => {
      const i = state.messages.length;
      const call = (state.messages[i - 1] as AIMessage).tool_calls?.[0];
      return {
        messages: [
          new ToolMessage({
            id: `tool-${i}`,
            tool_call_id: call?.id ?? '',
            name: 'lookup',
            content: filler(i, 12),
          }),
        ],
      };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) =>
      (s.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END,
    )
    .addEdge('tools', 'agent')
    .compile({ checkpointer });

const dirBytes = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
    const p = path.join(dir, e.name);
    return n + (e.isDirectory() ? dirBytes(p) : fs.statSync(p).size);
  }, 0);

const main = async () => {
  console.log(machineLine());
  const h = await startHarness();
  const { apiKey } = await h.createTenant('bench-langgraph');
  const client = new ArborClient({ baseUrl: h.baseUrl, apiKey });
  const arbor = new ArborSaver({ client });
  const memory = new CountingMemorySaver();
  const stopAt = { value: 0 };
  const graphs = [loopGraph(memory, stopAt), loopGraph(arbor, stopAt)];
  const config = { configurable: { thread_id: 'bench' }, recursionLimit: 10_000 };
  const baseDisk = dirBytes(h.dataDir);

  const eventBytes = async (id: string) => {
    let n = 0;
    for await (const e of client.events(id, { limit: 1000 }))
      n += Buffer.byteLength(JSON.stringify(e));
    return n;
  };
  const rows: string[][] = [];
  const points: {
    steps: number;
    ours: number;
    memory: number;
    oursMarginal: number;
    memoryLast: number;
  }[] = [];
  let prev = { ours: 0, checkpoints: 0 };
  for (const [k, target] of STEPS.entries()) {
    // Each superstep adds one message (the input adds one, its checkpoints two): stop at `target` checkpoints.
    let count = 0;
    for (const graph of graphs) {
      const saver = graph === graphs[0] ? memory : arbor;
      let have = 0;
      for await (const _ of saver.list({ configurable: { thread_id: 'bench' } })) have++;
      const messages = (await graph.getState(config)).values.messages?.length ?? 0;
      stopAt.value = messages + (target - have) - 1;
      await graph.invoke({ messages: [new HumanMessage(`round ${k + 1}`)] }, config);
      count = 0;
      for await (const _ of saver.list({ configurable: { thread_id: 'bench' } })) count++;
    }
    const held = memory.held();
    const ids = await arbor.conversationsOf('bench');
    if (!ids) throw new Error('no conversations');
    const ours = (await eventBytes(ids.messages)) + (await eventBytes(ids.checkpoints));
    const disk = dirBytes(h.dataDir) - baseDisk;
    const oursMarginal = (ours - prev.ours) / (count - prev.checkpoints);
    points.push({ steps: count, ours, memory: held.bytes, oursMarginal, memoryLast: held.last });
    rows.push([
      String(count),
      fmt(held.bytes / 1024, 0),
      fmt(memory.postgresBytes / 1024, 0),
      fmt(ours / 1024, 0),
      fmt(disk / 1024, 0),
      fmt(held.last, 0),
      fmt(held.bytes / held.checkpoints, 0),
      fmt(oursMarginal, 0),
      fmt(ours / count, 0),
      ratio(ours, held.bytes),
      ratio(ours, memory.postgresBytes),
    ]);
    prev = { ours, checkpoints: count };
  }
  console.log(section('storage of one thread, by checkpoints held'));
  console.log(
    table(
      [
        'checkpoints',
        'MemorySaver KiB',
        'Postgres layout KiB',
        'ours (events) KiB',
        'ours (disk) KiB',
        'MemorySaver B last cp',
        'MemorySaver B/cp',
        'ours B/cp since prev',
        'ours B/cp',
        'ours / MemorySaver',
        'ours / Postgres',
      ],
      rows,
    ),
  );
  const first = points[0];
  const last = points[points.length - 1];
  console.log(
    '\n' +
      verdictLines('bench:langgraph', [
        {
          target:
            'ours grows linearly (bytes per checkpoint added at the last point ≤ 2× at the first)',
          measured: `${fmt(last.oursMarginal, 0)} vs ${fmt(first.oursMarginal, 0)} B/checkpoint (${ratio(last.oursMarginal, first.oursMarginal)})`,
          pass: last.oursMarginal <= 2 * first.oursMarginal,
        },
        {
          target: `total ≤ 0.1× MemorySaver's at ${last.steps} checkpoints`,
          measured: ratio(last.ours, last.memory),
          pass: last.ours <= 0.1 * last.memory,
        },
      ]),
  );
  await h.destroy();
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
