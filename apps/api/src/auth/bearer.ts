/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is case-insensitive
 * (RFC 9110 §11.1), so `bearer` and `BEARER` work; one token, nothing after it.
 */
export const bearerToken = (header: string | undefined): string | null => {
  const m = /^bearer[ \t]+(\S+)$/i.exec(header?.trim() ?? '');
  return m ? m[1] : null;
};

/**
 * How many `Authorization` headers the request carried. Node keeps only the first of duplicates
 * in `headers`, so two (A, B) would authenticate as A without a word: counted on the raw list.
 */
export const authorizationHeaderCount = (rawHeaders: readonly string[]): number => {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'authorization') n++;
  }
  return n;
};
