import type { DrmType } from '../schemas/drm-type.ts';
import type { GatewayErrorKind } from './codes.ts';
import type { GatewayFormat } from './request.ts';

/**
 * What the gateway handler reports to `onEvent`, for logs and timelines. Events carry no keys, no
 * ciphertexts and no content keys; `reason` is the precise cause that the HTTP answer hides.
 */
export type GatewayEvent =
  | {
      type: 'request';
      format: GatewayFormat;
      user_id: string;
      cid: string;
      oid?: string;
      drm_type?: DrmType;
      nonce: string;
    }
  | {
      type: 'decision';
      format: GatewayFormat;
      user_id: string;
      cid: string;
      allow: boolean;
      /** "0000" for allow, else the site's code. */
      error_code: string;
      /** Time spent in `authorize`. */
      ms: number;
    }
  | {
      /** An answer with a site-kit code (see GATEWAY_ERROR_CODES), sent encrypted. */
      type: 'error';
      kind: GatewayErrorKind;
      /** The code sent: the kind's default or the one the site chose in `errorCodes`. */
      error_code: string;
      format: GatewayFormat;
      nonce?: string;
      reason: string;
    }
  | {
      /** An HTTP-level refusal: 400 (unreadable body), 405 (method) or 413 (size). */
      type: 'rejected';
      status: 400 | 405 | 413;
      reason: string;
    };

/** Receives the gateway handler's {@link GatewayEvent}s (`onEvent`); what it throws is ignored. */
export type GatewayEventListener = (event: GatewayEvent) => void;

/** Calls the listener; a listener that throws must not turn a good answer into a failure. */
export function emitter(listener: GatewayEventListener | undefined): GatewayEventListener {
  if (listener === undefined) return () => undefined;
  return (event) => {
    try {
      listener(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };
}
