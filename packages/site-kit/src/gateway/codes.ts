/**
 * Error codes site-kit itself puts in an encrypted gateway answer (ERROR / error_code), when the site's
 * own `authorize` never got to decide. Four digits and never "0000", as both formats require; a site's
 * own codes should avoid the 9xxx range.
 *
 * | code | meaning                                                                                   |
 * |------|-------------------------------------------------------------------------------------------|
 * | 9001 | the request decrypted and parsed, but breaks the spec (a field is missing or wrong)       |
 * | 9002 | the site's `authorize` threw or rejected                                                   |
 * | 9003 | the site's `authorize` answered a decision that breaks the spec or cannot be sent in the |
 * |      | request's format (for example hls_aes keys in an XML answer)                              |
 */
export const GATEWAY_ERROR_CODES = {
  INVALID_REQUEST: '9001',
  AUTHORIZE_FAILED: '9002',
  INVALID_DECISION: '9003',
} as const;

export type GatewayErrorCode = (typeof GATEWAY_ERROR_CODES)[keyof typeof GATEWAY_ERROR_CODES];

/** The fixed sentence sent with each code; the detail goes to `onEvent` only. */
export const GATEWAY_ERROR_MESSAGES: Record<GatewayErrorCode, string> = {
  '9001': 'invalid gateway request',
  '9002': 'the site could not decide',
  '9003': 'the site answered an invalid decision',
};
