import { SiteKitError } from '../errors.ts';

/**
 * Codes site-kit itself puts in an encrypted gateway answer (ERROR / error_code) when the site's own
 * `authorize` never got to decide. They share the site's code space: these defaults are reserved for
 * site-kit unless the site picks others (`errorCodes` of createGatewayHandler). Four digits and never
 * "0000", so that both formats can carry them.
 *
 * | kind             | default | meaning                                                                  |
 * |------------------|---------|--------------------------------------------------------------------------|
 * | INVALID_REQUEST  | 9001    | the request decrypted and parsed, but breaks the spec                    |
 * | AUTHORIZE_FAILED | 9002    | the site's `authorize` threw or rejected                                  |
 * | INVALID_DECISION | 9003    | `authorize` answered a decision that breaks the spec or cannot be sent in |
 * |                  |         | the request's format (hls_aes keys or a 3-digit code in an XML answer)   |
 */
export const GATEWAY_ERROR_CODES = {
  INVALID_REQUEST: '9001',
  AUTHORIZE_FAILED: '9002',
  INVALID_DECISION: '9003',
} as const;

/** Why site-kit answered for the site: a key of {@link GATEWAY_ERROR_CODES}. */
export type GatewayErrorKind = keyof typeof GATEWAY_ERROR_CODES;
/** A default code of {@link GATEWAY_ERROR_CODES} ("9001" to "9003"). */
export type GatewayErrorCode = (typeof GATEWAY_ERROR_CODES)[GatewayErrorKind];

/** The fixed sentence sent with each kind; the detail goes to `onEvent` only. */
export const GATEWAY_ERROR_MESSAGES: Record<GatewayErrorCode, string> = {
  '9001': 'invalid gateway request',
  '9002': 'the site could not decide',
  '9003': 'the site answered an invalid decision',
};

const KINDS = Object.keys(GATEWAY_ERROR_CODES) as GatewayErrorKind[];

/** The codes a handler uses: the defaults, with the site's own choices checked and put in. */
export function resolveErrorCodes(
  chosen: Partial<Record<GatewayErrorKind, string>> | undefined,
): Record<GatewayErrorKind, string> {
  const codes: Record<GatewayErrorKind, string> = { ...GATEWAY_ERROR_CODES, ...chosen };
  for (const kind of Object.keys(codes)) {
    const code = codes[kind as GatewayErrorKind];
    if (!KINDS.includes(kind as GatewayErrorKind)) {
      throw new SiteKitError(
        'INVALID_INPUT',
        `errorCodes.${kind}: unknown kind; the kinds are ${KINDS.join(', ')}.`,
      );
    }
    if (typeof code !== 'string' || !/^\d{4}$/.test(code) || code === '0000') {
      throw new SiteKitError(
        'INVALID_INPUT',
        `errorCodes.${kind}: must be 4 digits other than "0000" (both answer formats must carry it), got ${JSON.stringify(code)}.`,
      );
    }
  }
  if (new Set(Object.values(codes)).size !== KINDS.length) {
    throw new SiteKitError('INVALID_INPUT', 'errorCodes: each kind needs its own code.');
  }
  return codes;
}

/** The sentence sent with a kind's code, whichever code the site chose for it. */
export function errorMessage(kind: GatewayErrorKind): string {
  return GATEWAY_ERROR_MESSAGES[GATEWAY_ERROR_CODES[kind]];
}
