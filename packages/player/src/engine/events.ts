import type { LicenseAuthError } from './errors.ts';
import type { DrmType } from './key-systems.ts';
import type { TokenSource } from './token-cache.ts';

interface TokenEventBase {
  cid: string;
  drmType: DrmType;
  /** `token` (token mode) or `custom data` (gateway mode). */
  kind: 'token' | 'custom data';
}

/** Events every adapter's handle reports; durations are milliseconds on a monotonic clock. */
export interface EngineEvents {
  /** A fetch from the site started (cache misses only). */
  tokenRequested: TokenEventBase;
  tokenReceived: TokenEventBase & { durationMs: number };
  tokenFailed: TokenEventBase & { durationMs: number; error: LicenseAuthError };
  /** A license request went out with the token attached. */
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
   * The renewal driver renewed a license of the load: `new-session` (PlayReady, ClearKey: a new
   * session licensed with a fresh token replaced the old one), `renew-message` (FairPlay: the
   * session asked for its renewal, which goes out as a `license-renewal` request).
   */
  licenseRenewed: {
    keySystem: string;
    drmType: DrmType;
    cid: string;
    method: 'new-session' | 'renew-message';
  };
  /**
   * A renewal failed. `final`: the service refused it for good (a `LicenseServiceError`, e.g. 6003
   * the stream limit, 8711 the period over; or the site refused the token): the load stops, the
   * player reports `error`. Otherwise the next renewal tries again.
   */
  renewalFailed: {
    keySystem: string;
    drmType: DrmType;
    cid: string;
    error: LicenseAuthError;
    final: boolean;
  };
  /** The driver cannot renew a license (once per cause), e.g. Widevine without `persistentState`. */
  renewalWarning: { keySystem: string; message: string };
}

export interface Emitter<E> {
  on<K extends keyof E>(name: K, listener: (event: E[K]) => void): () => void;
  emit<K extends keyof E>(name: K, event: E[K]): void;
  clear(): void;
}

export function createEmitter<E>(): Emitter<E> {
  const listeners = new Map<keyof E, Set<(event: never) => void>>();
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
          (listener as (e: typeof event) => void)(event);
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
