import { escapeHtml, renderHtml } from './html';
import { msg, sample } from './testing';

describe('renderHtml', () => {
  it('is one self-contained page: no script, no external asset', () => {
    const { conversation, tree, messages } = sample();
    const html = renderHtml(conversation, tree, messages);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|<iframe|src="(?!data:)|url\(/i);
  });

  it('escapes every piece of content, title and ids included', () => {
    const { conversation, tree, messages } = sample();
    const evil = '<script>alert("x")</script>';
    messages.push(
      msg('a21', 'u20', 'assistant', [
        { type: 'text', text: evil },
        { type: 'tool_use', id: 'i"d', name: `<img src=x onerror=alert(1)>`, input: { q: evil } },
        { type: 'thinking', thinking: evil, signature: 's' },
      ]),
    );
    tree.nodes.find((n) => n.id === 'u20')?.children.push('a21');
    tree.nodes.push({ id: 'a21', parentId: 'u20', role: 'assistant', children: [] });
    tree.tip = 'a21';
    conversation.title = evil;
    const html = renderHtml(conversation, tree, messages);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml(evil));
    expect(html).toContain('<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</title>');
  });

  it('shows the tree (side branches collapsible) and the active branch as a transcript', () => {
    const { conversation, tree, messages } = sample();
    const html = renderHtml(conversation, tree, messages);
    const transcript = html.slice(html.indexOf('<h2>Active branch'));
    const order = [...transcript.matchAll(/<article class="msg \w+" id="m-([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(order[0]).toBe('u1');
    expect(order).not.toContain('u2');
    expect(order[order.length - 1]).toBe('u20');
    expect(order).toHaveLength(21);
    // The side branch opens in place; the active nodes link to the transcript.
    expect(html).toContain('branch 1 of 1 from a1');
    expect(html).toContain('<a class="node" href="#m-u1">');
    expect(html).toContain('<span class="label">old (dropped)</span>');
    expect(html).toMatch(/<details><summary class="fold">⋮ 18 messages<\/summary>/);
  });

  it('inlines images as data URIs', () => {
    const { conversation, tree, messages } = sample();
    messages[0].content.push({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    });
    expect(renderHtml(conversation, tree, messages)).toContain(
      'src="data:image/png;base64,iVBORw0KGgo="',
    );
  });
});
