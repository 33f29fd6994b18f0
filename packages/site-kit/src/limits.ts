/**
 * `@multidrm/site-kit/limits`: stream and device limits, bans and rate limits over a shared store
 * (memory here; a Redis store from `@multidrm/site-kit/redis` for many servers).
 */
export { createMemoryStore, type MemoryStoreOptions } from './store/memory-store.ts';
export type { AdmitRule, Admitted, SharedStore } from './store/store.ts';
export type { OutagePolicy, StoreOutageEvent } from './store/deadline.ts';
export {
  createLicenseLimits,
  type LicenseAsk,
  type LicenseLimits,
  type LicenseLimitsOptions,
  type LimitsEvent,
  type LimitVerdict,
} from './limits/license-limits.ts';
export { LIMIT_ERROR_CODES, LIMIT_MESSAGES, type LimitRefusalKind } from './limits/refusals.ts';
export { deviceIdFromClientMeta } from './limits/device-id.ts';
export {
  createRateLimit,
  type RateBudget,
  type RateLimitOptions,
} from './rate-limit/rate-limit.ts';
export type { RateVerdict, SiteRateLimit } from './rate-limit/verdict.ts';
