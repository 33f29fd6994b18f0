export { attachLicenseAuth, type LicenseAuthHandle } from './attach.ts';
export type { Operation } from './load-routing.ts';
export type { PrefetchOptions } from '../engine/handle.ts';
export type { FairPlayOptions, GetContentId, LicenseAuthOptions } from './options.ts';
export type { LicenseAuthEventName, LicenseAuthEvents, Listener } from './events.ts';
export { fairPlayInitDataTransform } from './fairplay-transform.ts';
export * from '../engine/public.ts';
