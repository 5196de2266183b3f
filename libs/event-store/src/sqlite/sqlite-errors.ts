/** Read by shape, not `instanceof`: under jest's module registries better-sqlite3's classes differ. */
export const sqliteCode = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
};
