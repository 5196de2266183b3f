/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is case-insensitive
 * (RFC 9110 §11.1), so `bearer` and `BEARER` work; one token, nothing after it.
 */
export const bearerToken = (header: string | undefined): string | null => {
  const m = /^bearer[ \t]+(\S+)$/i.exec(header?.trim() ?? '');
  return m ? m[1] : null;
};
