import type { ProxyDrmType } from './drm.ts';
import type { ProxyErrorCode } from './errors.ts';

/** What a request is to the proxy: a license (token added), a certificate or NCG server info. */
export type ProxyRequestKind = 'license' | 'certificate' | 'server-info';

/** What the proxy reports to `onEvent`: never a token, a key or a cookie. */
export type LicenseProxyEvent =
  | { type: 'request'; kind: ProxyRequestKind; drmType: ProxyDrmType; cid?: string }
  | {
      type: 'decision';
      drmType: ProxyDrmType;
      cid: string;
      allow: boolean;
      status: number;
      userId?: string;
    }
  | {
      type: 'upstream';
      kind: ProxyRequestKind;
      drmType: ProxyDrmType;
      /** The service's HTTP status, relayed as it came. */
      status: number;
      /** Time to the whole answer, in ms. */
      ms: number;
      /** The service's refusal code, when its answer is a refusal (HTTP 200 + errorCode). */
      errorCode?: string;
      /** `device_info` of a json-format answer the proxy unwrapped. */
      deviceInfo?: unknown;
    }
  | { type: 'rejected'; status: number; code: ProxyErrorCode; reason: string }
  | { type: 'error'; status: number; code: ProxyErrorCode; reason: string };

/** Receives the proxy's events (request, decision, upstream); never a token or a body. */
export type ProxyEventListener = (event: LicenseProxyEvent) => void;

/** Calls the site's listener; a failing listener never breaks a request. */
export function eventEmitter(listener: ProxyEventListener | undefined): ProxyEventListener {
  if (listener === undefined) return () => undefined;
  return (event) => {
    try {
      listener(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };
}
