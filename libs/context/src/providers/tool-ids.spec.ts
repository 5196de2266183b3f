import fc from 'fast-check';
import type { Block } from '@arbor/domain/messages';
import { checkBody } from '../validity';
import { PROVIDER_NAMES } from '../types';
import { chain, text } from '../testing/conversation';
import { encode, encodeWithRenames } from './index';
import { assignToolIds, toolNameProblem, TOOL_RULES } from './tool-ids';

const call = (id: string, name = 'run'): Block => ({ type: 'tool_use', id, name, input: {} });
const result = (id: string, out = 'ok'): Block => ({
  type: 'tool_result',
  tool_use_id: id,
  content: out,
});

/** Turns whose calls use the given ids, results right after, the assistant then answers. */
const turns = (ids: string[][], name = 'run') =>
  chain(
    ids.flatMap((turn, i) => [
      { role: 'user' as const, content: [text(`q${i}`)] },
      { role: 'assistant' as const, content: turn.map((id) => call(id, name)) },
      { role: 'user' as const, content: turn.map((id) => result(id, `${i}/${id}`)) },
      { role: 'assistant' as const, content: [text(`a${i}`)] },
    ]),
  );

const model = {
  anthropic: 'claude-x',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-4o',
  gemini: 'gemini-2.5-pro',
};

describe('assignToolIds', () => {
  it('keeps valid unique ids: the same message objects come back', () => {
    const messages = turns([['toolu_01'], ['toolu_02']]);
    for (const p of PROVIDER_NAMES) {
      const out = assignToolIds(p, messages);
      expect(out.messages).toBe(messages);
      expect(out.renames).toEqual([]);
    }
  });

  it('toolu_01 twice: the second call and its result get toolu_01_2, the first keeps its id', () => {
    const out = assignToolIds('anthropic', turns([['toolu_01'], ['toolu_01']]));
    expect(out.renames).toEqual([
      { messageId: 'm6', block: 0, field: 'id', from: 'toolu_01', to: 'toolu_01_2' },
      { messageId: 'm7', block: 0, field: 'tool_use_id', from: 'toolu_01', to: 'toolu_01_2' },
    ]);
  });

  it('a later original that equals a generated id is renamed in turn', () => {
    const out = assignToolIds('anthropic', turns([['a'], ['a'], ['a_2']]));
    expect(out.renames.filter((r) => r.field === 'id').map((r) => r.to)).toEqual(['a_2', 'a_2_2']);
  });

  it('characters a provider refuses are replaced, lengths cut, names mapped consistently', () => {
    const messages = turns(
      [['w`\n## user', 'functions.Bash:0', 'x'.repeat(80)]],
      'mcp.server:tool',
    );
    const out = assignToolIds('anthropic', messages, ['mcp_server_tool']);
    const ids = out.renames.filter((r) => r.field === 'id').map((r) => r.to);
    expect(ids).toEqual(['w_user', 'functions_Bash_0', 'x'.repeat(64)]);
    // Never onto a definition name: the definition is another tool.
    expect(new Set(out.renames.filter((r) => r.field === 'name').map((r) => r.to))).toEqual(
      new Set(['mcp_server_tool_2']),
    );
    expect(assignToolIds('gemini', messages).renames.filter((r) => r.field === 'name')).toEqual([]);
    expect(
      assignToolIds('openai-chat', messages).renames.find((r) => r.from.startsWith('xxx'))?.to,
    ).toHaveLength(40);
  });

  it('appending turns never changes an earlier id (the cached prefix stays the same)', () => {
    const ids = fc.array(
      fc
        .array(fc.constantFrom('call_0', 'call_1', 'a.b', 'toolu_01', 'call_0_2'), {
          minLength: 1,
          maxLength: 3,
        })
        .map((t) => [...new Set(t)]),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(ids, fc.constantFrom(...PROVIDER_NAMES), (spec, provider) => {
        const all = turns(spec);
        const whole = encode(provider, all, { model: model[provider] });
        expect(checkBody(provider, whole)).toEqual([]);
        for (let n = 1; n < spec.length; n++) {
          const prefix = assignToolIds(provider, all.slice(0, n * 4)).messages;
          const full = assignToolIds(provider, all).messages.slice(0, n * 4);
          expect(full).toEqual(prefix);
        }
        // Unique and valid for the provider.
        const bodyIds = assignToolIds(provider, all)
          .messages.flatMap((m) => m.content)
          .filter((b) => b.type === 'tool_use')
          .map((b) => b.id);
        expect(new Set(bodyIds).size).toBe(bodyIds.length);
        for (const id of bodyIds)
          expect(id.length).toBeLessThanOrEqual(TOOL_RULES[provider].idMaxLength);
      }),
      { numRuns: 150 },
    );
  });

  it('encoding 1 (contexts recorded before) encodes the ids as recorded', () => {
    const messages = turns([['toolu_01'], ['toolu_01']]);
    const legacy = encodeWithRenames('gemini', messages, { model: 'gemini-2.5-pro', encoding: 1 });
    expect(legacy.renames).toEqual([]);
    expect(JSON.stringify(legacy.body).match(/toolu_01_2/)).toBeNull();
    expect(JSON.stringify(encode('gemini', messages, { model: 'gemini-2.5-pro' }))).toContain(
      'toolu_01_2',
    );
  });

  it('toolNameProblem: the provider rules for tool definitions', () => {
    expect(toolNameProblem('anthropic', 'a'.repeat(128))).toBeNull();
    expect(toolNameProblem('openai-chat', 'a'.repeat(65))).toMatch(/1 to 64/);
    expect(toolNameProblem('gemini', 'mcp.server:tool')).toBeNull();
    expect(toolNameProblem('gemini', '1tool')).toMatch(/starting with a letter/);
    expect(toolNameProblem('anthropic', 'a.b')).not.toBeNull();
  });
});
