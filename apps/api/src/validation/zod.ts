/**
 * The HTTP edge validates with the contract's schemas through the application's helpers, which
 * raise `validation_failed` application errors (the problem filter answers them as 400).
 */
export { parseOrThrow } from '@arbor/application';
