// What every adapter's entry exports besides its own attachLicenseAuth.
export {
  LicenseAuthError,
  LicenseServiceError,
  TokenFetchError,
  type LicenseAuthErrorCode,
  type LicenseServiceErrorInfo,
  type ServiceLimit,
  type TokenFetchErrorInfo,
} from './errors.ts';
export { findLicenseAuthError } from './find-error.ts';
export { drmTypeFor, type DrmType } from './key-systems.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
export type { TokenFetcher, TokenParams } from './site-client.ts';
export type { TokenSource } from './token-cache.ts';
export type { EngineEvents } from './events.ts';
export type { AxiosLike, EngineOptions, FetchFunction } from './options.ts';
export type { RenewalOptions } from './renewal.ts';
export { contentIdFromSkd, normaliseCertificate, spcFormBody, unwrapCkc } from './fairplay.ts';
export { parseServiceError, type ServiceErrorBody } from './service-error.ts';
export { readLicenseAnswer, type LicenseAnswer } from './license-answer.ts';
