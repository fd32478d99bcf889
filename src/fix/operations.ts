/**
 * The fix operations for the fix folder: the typed model (src/report/fix-operations.ts, which
 * the report's fixes carry) and its rendering to shell text and argv (src/domain/fix-commands.ts).
 */
export * from '../report/fix-operations.js';
export * from '../domain/fix-commands.js';
