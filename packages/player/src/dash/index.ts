export { attachLicenseAuth, type DashLicenseAuthOptions } from './attach.ts';
export type { LicenseAuthHandle, PrefetchOptions } from '../engine/handle.ts';
export * from '../engine/public.ts';
