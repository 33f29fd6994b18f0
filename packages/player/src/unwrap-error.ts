import { LicenseAuthError } from './errors.ts';

/**
 * The error the app can act on inside a Shaka error (from the player's `error` event or a rejected
 * `load()`): the `LicenseAuthError` a filter threw, found in the `data` of the errors Shaka wraps
 * it in. `null` when there is none.
 */
export function findLicenseAuthError(error: unknown, depth = 0): LicenseAuthError | null {
  if (error instanceof LicenseAuthError) return error;
  const data = (error as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || depth > 5) return null;
  for (const item of data) {
    const found = findLicenseAuthError(item, depth + 1);
    if (found) return found;
  }
  return null;
}
