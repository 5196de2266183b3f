/**
 * Compares two runs of the same calls (e.g. the embedded shape and the scaled shape): generated
 * ids, keys, hashes and times are replaced by aliases in order of first appearance, so two runs
 * that made the same calls in the same order normalize to the same text.
 */
/** Ids, keys, hashes and times differ between two runs; everything else must not. */
export const normalizer = () => {
  const seen = new Map<string, string>();
  const alias = (kind: string) => (v: string) => {
    let a = seen.get(v);
    if (a === undefined) {
      a = `<${kind}${seen.size}>`;
      seen.set(v, a);
    }
    return a;
  };
  return (text: string, secrets: string[]): string => {
    let t = text;
    for (const s of secrets) t = t.split(s).join(alias('secret')(s));
    return t
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, alias('uuid'))
      .replace(/[0-9a-f]{64}/g, '<hash>');
  };
};
