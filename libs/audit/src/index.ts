export {
  CHAIN_VERSION,
  chainHash,
  chainInput,
  readChain,
  type ChainFields,
  type ChainLink,
  type ChainState,
} from './chain';
export { withHashChain, type HashChainOptions } from './hash-chain-store';
export { FINDING_KINDS, type Finding, type FindingKind } from './findings';
export {
  createVerifier,
  type Verifier,
  type VerifierOptions,
  type VerifierReport,
} from './verifier';
export {
  readAllPages,
  verifyLog,
  verifyStore,
  type EventSource,
  type ReadAllPagesOptions,
  type VerifyOptions,
  type VerifyProgress,
  type VerifyReport,
} from './verify-log';
export {
  AUDIT_KEY_FILE,
  AUDIT_SECRET_ENV,
  loadAuditSecret,
  MIN_SECRET_BYTES,
  parseAuditSecret,
  type AuditSecret,
} from './secret';
