import { LicenseAuthError } from './errors.ts';

/**
 * The error the app can act on inside a player's error: the `LicenseAuthError` a hook raised, found
 * where each player keeps the cause (Shaka: the `data` of the errors it wraps it in; hls.js: the
 * `error` of its ERROR event's data; dash.js: the `data` of the event's `error`; video.js: the
 * `originalError` of `player.error()`; `cause` anywhere). `null` when there is none.
 */
export function findLicenseAuthError(error: unknown, depth = 0): LicenseAuthError | null {
  if (error instanceof LicenseAuthError) return error;
  if (typeof error !== 'object' || error === null || depth > 5) return null;
  const { data, error: inner, originalError, cause } = error as Record<string, unknown>;
  for (const item of [...(Array.isArray(data) ? data : [data]), inner, originalError, cause]) {
    const found = findLicenseAuthError(item, depth + 1);
    if (found) return found;
  }
  return null;
}
