/**
 * SQLite's error code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, ...) of an error, if it is one.
 * Read by shape, not `instanceof`: better-sqlite3's native side keeps the error class of the first
 * module instance that loaded it, so under module registries (jest) the classes differ.
 */
export const sqliteCode = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
};
