import type { EngineEvents } from '../engine/events.ts';
import type { LicenseAuthError } from '../engine/errors.ts';
import type { ShakaError } from './shaka-types.ts';

/** Events of a Shaka license auth handle; durations are milliseconds on a monotonic clock. */
export interface LicenseAuthEvents extends EngineEvents {
  /**
   * A DRM session's license request failed (from Shaka's `drm.failureCallback`). Shaka raises its
   * `error` event only when `dropped` is false: with several sessions it drops a failed one.
   */
  licenseFailed: {
    /** The cause this package raised (`findLicenseAuthError`), if it was one of its own. */
    error: LicenseAuthError | null;
    /** Shaka's `LICENSE_REQUEST_FAILED` error. */
    shakaError: ShakaError;
    sessionId: string | undefined;
    /** Shaka will not raise an `error` event for it (several sessions, or the app handled it). */
    dropped: boolean;
    /** The session is being started again with `player.retryLicensing()` (`sessionRetries`). */
    retrying: boolean;
  };
}

/** The name of a Shaka handle's event, a key of {@link LicenseAuthEvents}. */
export type LicenseAuthEventName = keyof LicenseAuthEvents;
/** A listener of the Shaka handle's event `K`, for `handle.on(K, listener)`. */
export type Listener<K extends LicenseAuthEventName> = (event: LicenseAuthEvents[K]) => void;
