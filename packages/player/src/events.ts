import type { LicenseAuthError } from './errors.ts';
import type { DrmType } from './key-systems.ts';
import type { ShakaError } from './shaka-types.ts';
import type { TokenSource } from './token-cache.ts';

interface TokenEventBase {
  cid: string;
  drmType: DrmType;
  /** `token` (token mode) or `custom data` (gateway mode). */
  kind: 'token' | 'custom data';
}

/** Events of a license auth handle; durations are milliseconds on a monotonic clock. */
export interface LicenseAuthEvents {
  /** A fetch from the site started (cache misses only). */
  tokenRequested: TokenEventBase;
  tokenReceived: TokenEventBase & { durationMs: number };
  tokenFailed: TokenEventBase & { durationMs: number; error: LicenseAuthError };
  /** The request filter let a license request go, with the token attached. */
  licenseRequestSent: {
    keySystem: string;
    drmType: DrmType;
    cid: string;
    attempt: number;
    /** Time the request waited for its token. */
    tokenWaitMs: number;
    tokenSource: TokenSource;
    licenseRequestType: string | null;
    /**
     * The one re-send with a fresh token after a refusal a fresh token can fix (`freshTokenCodes`,
     * HTTP 401/403). A license request is re-sent so at most once.
     */
    refreshed: boolean;
  };
  /** The license server answered (with a license or an error). */
  licenseAnswered: {
    keySystem: string;
    drmType: DrmType;
    cid: string;
    status: number | undefined;
    /** From sending to the answer. */
    durationMs: number;
    error?: LicenseAuthError;
  };
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

export type LicenseAuthEventName = keyof LicenseAuthEvents;
export type Listener<K extends LicenseAuthEventName> = (event: LicenseAuthEvents[K]) => void;

export interface Emitter {
  on<K extends LicenseAuthEventName>(name: K, listener: Listener<K>): () => void;
  emit<K extends LicenseAuthEventName>(name: K, event: LicenseAuthEvents[K]): void;
  clear(): void;
}

export function createEmitter(): Emitter {
  const listeners = new Map<string, Set<(event: never) => void>>();
  return {
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    emit(name, event) {
      for (const listener of listeners.get(name) ?? []) {
        // A throwing app listener must not break license delivery.
        try {
          (listener as Listener<typeof name>)(event);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
    clear() {
      listeners.clear();
    },
  };
}
