/** Rows an UPDATE or DELETE changed: better-sqlite3 answers `{ changes }`, mysql2 `[{ affectedRows }, …]`. */
export function changedRows(result: unknown): number {
  const first = Array.isArray(result) ? result[0] : result;
  const r = first as { changes?: number; affectedRows?: number };
  return Number(r.changes ?? r.affectedRows ?? 0);
}
