import type { LicenseAuthError } from './errors.ts';
import { invalidOptions } from './options.ts';

/** Whether `url` (absolute, or relative to the page) points at this machine. */
export function isLocalUrl(url: string): boolean {
  try {
    const page = (globalThis as { location?: { href: string } }).location?.href;
    const { hostname } = new URL(url, page);
    return /^(localhost|127(\.\d+){3}|\[::1\])$|\.localhost$/.test(hostname);
  } catch {
    return false;
  }
}

/**
 * The header's name is the service's (its integration guide gives it); the default only matches the
 * local emulator, so a real license server without `header` fails here instead of refusing every
 * license with "no token".
 */
export const headerRequired = (url: string): LicenseAuthError =>
  invalidOptions(
    `header is required for the license server ${url}: give the header name from the license service's integration guide (the default is for a local emulator only)`,
  );
