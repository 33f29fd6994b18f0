export {
  attachLicenseAuth,
  type VideoJsKeySystem,
  type VideoJsLicenseAuthHandle,
  type VideoJsLicenseAuthOptions,
  type VideoJsPlayer,
} from './attach.ts';
export type { LicenseAuthHandle, PrefetchOptions } from '../engine/handle.ts';
export type { FairPlayOptions } from '../engine/options.ts';
export * from '../engine/public.ts';
