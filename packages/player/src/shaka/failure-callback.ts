import { toBase64 } from '../engine/bytes.ts';
import { TokenFetchError } from '../engine/errors.ts';
import type { Emitter } from '../engine/events.ts';
import { findLicenseAuthError } from '../engine/find-error.ts';
import type { LicenseAuthEvents } from './events.ts';
import type { DrmSessionMetadata, ShakaError } from './shaka-types.ts';

/** The session API of a shaka.Player (a shaka.offline.Storage has none: it drops no session). */
export interface SessionHost {
  getActiveSessionsMetadata?(): DrmSessionMetadata[];
  retryLicensing?(metadata: DrmSessionMetadata): Promise<boolean>;
}

/** Init data whose retries are counted, at most. */
const MAX_REMEMBERED = 64;

/**
 * `drm.failureCallback`: Shaka calls it for every failed license request, and raises its `error`
 * event only while a single session is open; a failed session among several is dropped without
 * one. The app's own callback runs first; then the failure is reported as `licenseFailed`, and a
 * dropped session that failed for a passing reason (the site or the network, not the service's
 * verdict) is started again, at most `retries` times for the same init data. A request dropped
 * because the app moved on is marked handled and reported nowhere.
 */
export function createFailureCallback(
  host: SessionHost,
  previous: ((error: ShakaError) => unknown) | undefined,
  emit: Emitter<LicenseAuthEvents>['emit'],
  retries: number,
  isDropped?: (error: ShakaError) => boolean,
): (error: ShakaError) => void {
  const retried = new Map<string, number>();
  return (shakaError) => {
    // A request of a load the app left (another asset, an unload): not a failure at all.
    if (isDropped?.(shakaError)) {
      shakaError.handled = true;
      return;
    }
    try {
      previous?.(shakaError);
    } catch (error) {
      // The app's bug is reported outside; the failure is still reported and handled below.
      queueMicrotask(() => {
        throw error;
      });
    }
    const error = findLicenseAuthError(shakaError);
    const metadata = (shakaError.data as unknown[] | undefined)?.[1] as
      DrmSessionMetadata | undefined;
    const handled = !!shakaError.handled;
    // The failed session is still counted while Shaka calls this.
    const dropped = handled || host.getActiveSessionsMetadata?.().length! > 1;
    const key = metadata?.initData ? toBase64(metadata.initData) : '';
    const count = retried.get(key) ?? 0;
    const retrying =
      dropped &&
      !handled &&
      !!key &&
      count < retries &&
      (!error || error instanceof TokenFetchError);
    if (retrying) {
      retried.set(key, count + 1);
      // A long session meets many init data (key rotation, a playlist): the oldest is forgotten.
      if (retried.size > MAX_REMEMBERED) retried.delete(retried.keys().next().value!);
      shakaError.handled = true;
      host.retryLicensing!(metadata!).catch(() => undefined);
    }
    emit('licenseFailed', {
      error,
      shakaError,
      sessionId: metadata?.sessionId,
      dropped,
      retrying,
    });
  };
}
