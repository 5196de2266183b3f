/**
 * How many of `items` fit an answer of `maxBytes` (their JSON, UTF-8): at least one, so a page
 * always makes progress even when one item alone is larger (an item is bounded by the request
 * limits that let it in). Measured item by item, stopping at the first that does not fit.
 */
export const itemsWithinBytes = (items: readonly unknown[], maxBytes: number): number => {
  let total = 64; // the envelope: {"items":[…],"next":"<cursor>"}
  for (let i = 0; i < items.length; i++) {
    total += Buffer.byteLength(JSON.stringify(items[i]) ?? 'null') + 1;
    if (total > maxBytes) return Math.max(1, i);
  }
  return items.length;
};

/** A page cut to `maxBytes`: `nextAt` then points at the first item left out. */
export const capPageBytes = <T>(
  page: { items: T[]; nextAt: number | null; resumeAt: (index: number) => number; whole?: boolean },
  maxBytes: number,
): { items: T[]; nextAt: number | null } => {
  const n = page.whole === true ? page.items.length : itemsWithinBytes(page.items, maxBytes);
  return n >= page.items.length
    ? { items: page.items, nextAt: page.nextAt }
    : { items: page.items.slice(0, n), nextAt: page.resumeAt(n) };
};

/**
 * JSON Lines, one message at a time: an export is streamed, so its size is bounded by neither
 * the largest string V8 can build (`RangeError: Invalid string length`) nor the process's memory
 * for a second copy of the conversation.
 */
export function* jsonLines(items: Iterable<unknown>): Generator<string> {
  for (const item of items) yield `${JSON.stringify(item)}\n`;
}
