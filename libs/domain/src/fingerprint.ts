/** Canonical JSON (sorted keys) and its sha256: equal content ⇔ equal fingerprint. */
import { createHash } from 'node:crypto';

class Text {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Text('[');
const CLOSE_ARRAY = new Text(']');
const OPEN_OBJECT = new Text('{');
const CLOSE_OBJECT = new Text('}');
const COMMA = new Text(',');

/** An explicit stack, not recursion: a value nested 100,000 deep is hashed like a flat one. */
const canonical = (root: unknown): string => {
  let out = '';
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Text) {
      out += value.text;
    } else if (value === null || typeof value !== 'object') {
      out += JSON.stringify(value) ?? 'null';
    } else if (Array.isArray(value)) {
      stack.push(CLOSE_ARRAY);
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push(value[i]);
        if (i > 0) stack.push(COMMA);
      }
      stack.push(OPEN_ARRAY);
    } else {
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      stack.push(CLOSE_OBJECT);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(obj[keys[i]]);
        stack.push(new Text(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
      stack.push(OPEN_OBJECT);
    }
  }
  return out;
};

export const canonicalJson = (value: unknown): string => canonical(value);

export const fingerprint = (value: unknown): string =>
  createHash('sha256').update(canonical(value)).digest('hex');
