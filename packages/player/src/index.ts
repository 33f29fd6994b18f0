export { attachLicenseAuth, type LicenseAuthHandle, type PrefetchOptions } from './attach.ts';
export type { FairPlayOptions, LicenseAuthOptions } from './options.ts';
export type { LicenseAuthEventName, LicenseAuthEvents, Listener } from './events.ts';
export {
  LicenseAuthError,
  LicenseServiceError,
  TokenFetchError,
  type LicenseAuthErrorCode,
  type LicenseServiceErrorInfo,
  type TokenFetchErrorInfo,
} from './errors.ts';
export { findLicenseAuthError } from './unwrap-error.ts';
export { drmTypeFor, type DrmType } from './key-systems.ts';
export {
  DEFAULT_RETRY,
  type RetryPolicy,
  type TokenFetcher,
  type TokenParams,
} from './token-client.ts';
export type { TokenSource } from './token-cache.ts';
export {
  contentIdFromSkd,
  fairPlayInitDataTransform,
  normaliseCertificate,
  spcFormBody,
  unwrapCkc,
} from './fairplay.ts';
export { parseServiceError, type ServiceErrorBody } from './service-error.ts';
export { readLicenseAnswer, type LicenseAnswer } from './license-answer.ts';
