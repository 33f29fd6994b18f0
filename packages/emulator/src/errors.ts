/**
 * Every way the emulator can refuse, by its named reason. A license refusal has the license service's
 * code (`serviceCode`, a digit string: the service's own where its guide has one, the project's own
 * 6000-6099 where it has none) and the service-like short `message`; the `explain` dialect answers
 * with the HTTP `status` instead. Transport failures (no such path, a foreign origin, a body too
 * large, a bug) are not license decisions: they keep their HTTP status in both dialects.
 *
 * The README's code table is generated from this one (a test keeps them equal).
 */
export const ERROR_CODES = {
  MISSING_CUSTOM_DATA: {
    serviceCode: '7010',
    status: 400,
    message: 'No token or custom data',
    meaning: 'the license request carries no token or custom data (header or query parameter)',
    fix: 'Send the license token (or the gateway custom data) in the configured header, or in the query parameter of the same name.',
  },
  MALFORMED_TOKEN: {
    serviceCode: '7009',
    status: 400,
    message: 'Token parse error',
    meaning: 'the value is not base64 of a JSON object (neither a token nor custom data)',
    fix: 'Send the token exactly as the site issued it: standard base64, no URL encoding, no "Bearer " prefix.',
  },
  INVALID_TOKEN_FIELD: {
    serviceCode: '7013',
    status: 400,
    message: 'Invalid token JSON',
    meaning: 'a member of the token JSON is missing or breaks its rule (the field is named)',
    fix: 'Build the token with a token builder that follows the token specification; the field names the member to fix.',
  },
  INVALID_DRM_TYPE: {
    serviceCode: '7018',
    status: 400,
    message: 'Invalid drm_type',
    meaning: 'the drm_type of the token is not one of PlayReady, Widevine, FairPlay, NCG, Wiseplay',
    fix: 'Set drm_type to "PlayReady", "Widevine", "FairPlay", "NCG" or "Wiseplay" (readers take any case; write this spelling).',
  },
  INVALID_CUSTOM_DATA: {
    serviceCode: '7007',
    status: 400,
    message: 'Custom data parse error',
    meaning: 'the gateway custom data is not {"drm_type","site_id","data"} (the field is named)',
    fix: 'Send the custom data the site made for the player (base64 of {"drm_type","site_id","data"}) unchanged.',
  },
  DECRYPT_FAILED: {
    serviceCode: '7008',
    status: 403,
    message: 'Custom data decrypt error',
    meaning: 'the custom data does not open with the site key; one answer for every way it fails',
    fix: 'Make the custom data with the site key configured for its site_id; which step failed is said nowhere, by design (no padding oracle).',
  },
  TOKEN_DECRYPT_FAILED: {
    serviceCode: '7016',
    status: 403,
    message: 'Invalid token',
    meaning:
      'the policy of a token with a valid hash does not open with the site key; one answer for every way it fails',
    fix: 'Make the token with the site key configured for its site_id; which step failed is said nowhere, by design (no padding oracle).',
  },
  BAD_LICENSE_REQUEST: {
    serviceCode: '6005',
    status: 400,
    message: 'Invalid license request',
    meaning:
      'the body is not a ClearKey license request {"kids":[...],"type":...} nor a challenge of the token\'s DRM',
    fix: 'Send the CDM\'s license request message unchanged as the body: for ClearKey {"kids":["<base64url key ID>"],"type":"temporary"}.',
  },
  WIDEVINE_BAD_CHALLENGE: {
    serviceCode: '7107',
    status: 400,
    message: 'Invalid Widevine license challenge',
    meaning: 'a Widevine token came with a body that is not a Widevine challenge',
    fix: "Send the Widevine CDM's challenge unchanged as the body (application/octet-stream).",
  },
  PLAYREADY_BAD_CHALLENGE: {
    serviceCode: '7203',
    status: 400,
    message: 'Invalid PlayReady license challenge',
    meaning: 'a PlayReady token came with a body that is not a PlayReady challenge',
    fix: "Send the PlayReady CDM's challenge (the SOAP AcquireLicense XML) unchanged as the body.",
  },
  PLAYREADY_NO_CUSTOM_DATA: {
    serviceCode: '7206',
    status: 400,
    message: 'No custom data in the PlayReady challenge',
    meaning:
      'a PlayReady challenge came without a token: none in the header, the query or its <CustomData>',
    fix: "Send the token in the configured header (or query parameter), or in the challenge's <CustomData>.",
  },
  FAIRPLAY_EMPTY_SPC: {
    serviceCode: '7305',
    status: 400,
    message: 'Empty SPC',
    meaning: 'a FairPlay request came with an empty spc (or an empty body)',
    fix: 'Send spc=<base64 of the SPC the CDM made> as the body.',
  },
  FAIRPLAY_BAD_SPC: {
    serviceCode: '7316',
    status: 400,
    message: 'Invalid SPC data',
    meaning: 'the spc of a FairPlay request is not base64, or the body is not an spc= form body',
    fix: 'Send spc=<base64 SPC>, the base64 URL-escaped or raw.',
  },
  MISSING_PARAMETER: {
    serviceCode: '9001',
    status: 400,
    message: 'Required parameter missing',
    meaning:
      'a required request parameter is missing (spc of a FairPlay form body, siteId of a certificate request)',
    fix: 'Add the parameter the message names.',
  },
  UNSUPPORTED_MODE: {
    serviceCode: '9999',
    status: 400,
    message: 'Requested mode not supported',
    meaning:
      'the request asks for a mode the emulator does not serve (a mode= query parameter, an NCG token)',
    fix: 'Send license requests without a mode parameter; NCG is not emulated.',
  },
  UNKNOWN_SITE: {
    serviceCode: '1003',
    status: 403,
    message: 'Unknown site ID',
    meaning: 'no configured site has the site_id of the token or custom data',
    fix: 'Add the site to "sites" in the emulator config, or issue the token with a configured site ID.',
  },
  HASH_MISMATCH: {
    serviceCode: '7019',
    status: 403,
    message: 'Token hash mismatch',
    meaning: "the token's hash is wrong (says which hash reading, if any, matches)",
    fix: "Check the site's access key and the hash reading (hashEncoding for v1 tokens; v2 tokens use the raw digest), and that no member changed after hashing.",
  },
  TOKEN_EXPIRED: {
    serviceCode: '7011',
    status: 403,
    message: 'Token expired',
    meaning: "now is past the token's timestamp + tokenValiditySeconds (says by how much)",
    fix: "Fetch a fresh token right before each license request (renewals too), and check the site's clock.",
  },
  TOKEN_NOT_YET_VALID: {
    // The service's table has one code for a timestamp outside the validity window, either side.
    serviceCode: '7011',
    status: 403,
    message: 'Token timestamp is in the future',
    meaning: "the token's timestamp lies further in the future than clockSkewSeconds",
    fix: "Check the site's clock (it must be UTC), or allow more clockSkewSeconds.",
  },
  INVALID_POLICY: {
    serviceCode: '6002',
    status: 403,
    message: 'Invalid token policy',
    meaning:
      'the policy inside a token with a valid hash breaks the token specification (the field is named)',
    fix: 'Fix the named member of the policy where the site builds its tokens.',
  },
  GATEWAY_NOT_CONFIGURED: {
    serviceCode: '8705',
    status: 403,
    message: 'Invalid gateway URL',
    meaning: 'custom data came for a site that has no gatewayUrl',
    fix: 'Set the gatewayUrl of the site in the emulator config, or have the player send a license token.',
  },
  GATEWAY_UNREACHABLE: {
    serviceCode: '8701',
    status: 424,
    message: 'Gateway connection failed',
    meaning: "the site's gateway could not be reached (connection refused, DNS, reset)",
    fix: 'Check the gatewayUrl in the emulator config and that the site is running.',
  },
  GATEWAY_TIMEOUT: {
    serviceCode: '8701',
    status: 424,
    message: 'Gateway connection failed',
    meaning: 'the gateway did not answer within gatewayTimeoutMs',
    fix: 'Make the gateway answer faster, or raise gatewayTimeoutMs.',
  },
  GATEWAY_BAD_STATUS: {
    serviceCode: '8701',
    status: 424,
    message: 'Gateway connection failed',
    meaning: 'the gateway answered with an HTTP status other than 2xx',
    fix: 'A gateway answers HTTP 200 with the encrypted answer as its body, also when it refuses.',
  },
  GATEWAY_DECRYPT_FAILED: {
    serviceCode: '8706',
    status: 424,
    message: 'Gateway response decrypt error',
    meaning: "the gateway's answer does not decrypt with the site key",
    fix: 'The gateway must encrypt its answer with the same site key as the emulator config.',
  },
  GATEWAY_BAD_RESPONSE: {
    serviceCode: '8706',
    status: 424,
    message: 'Invalid gateway response',
    meaning: "the gateway's decrypted JSON answer breaks the spec (the field path is named)",
    fix: 'Fix the named member of the JSON answer in the gateway.',
  },
  GATEWAY_BAD_XML: {
    serviceCode: '8006',
    status: 424,
    message: 'Invalid gateway XML response',
    meaning: "the gateway's decrypted XML answer (old format) breaks the spec",
    fix: 'Fix the XML answer in the gateway (RES with ERROR, NONCE, LIMIT, ...).',
  },
  GATEWAY_PERIOD_INVALID: {
    serviceCode: '8707',
    status: 424,
    message: 'Invalid playback period',
    meaning:
      'the playback period of the gateway answer is not a real time, or LIMIT is Y without PD_END',
    fix: 'Send a limited period with a real PD_END (and PD_START), UTC yyyy-mm-ddThh:mm:ssZ.',
  },
  GATEWAY_PERIOD_FORMAT: {
    serviceCode: '8708',
    status: 424,
    message: 'Playback period badly formatted',
    meaning: 'PD_START, PD_END or expire_date is not yyyy-mm-ddThh:mm:ssZ',
    fix: 'Write the times as UTC yyyy-mm-ddThh:mm:ssZ, whole seconds.',
  },
  GATEWAY_PERIOD_ORDER: {
    serviceCode: '8709',
    status: 424,
    message: 'Playback period start not before end',
    meaning: 'PD_START is not before PD_END',
    fix: 'The period must start before it ends.',
  },
  GATEWAY_HDCP_INVALID: {
    serviceCode: '8712',
    status: 424,
    message: 'Invalid HDCP setting',
    meaning: 'the PC HDCP attribute is not 0 or 1',
    fix: 'HDCP is 0 (non-HDCP playback allowed) or 1 (HDCP only).',
  },
  GATEWAY_CGMS_INVALID: {
    serviceCode: '8715',
    status: 424,
    message: 'Invalid CGMS-A setting',
    meaning: 'the PC CGMS-A attribute is not -1 to 3',
    fix: 'CGMS-A is -1 (off), 0, 1, 2 or 3.',
  },
  GATEWAY_APS_INVALID: {
    serviceCode: '8716',
    status: 424,
    message: 'Invalid APS setting',
    meaning: 'the PC APS attribute is not 0 to 3',
    fix: 'APS is 0 (off), 1, 2 or 3.',
  },
  NONCE_MISMATCH: {
    serviceCode: '8004',
    status: 424,
    message: 'Gateway nonce mismatch',
    meaning: "the gateway's answer carries another nonce than the callback",
    fix: "The gateway must return the request's nonce unchanged (is its answer cached?).",
  },
  GATEWAY_DENIED: {
    serviceCode: '8002',
    status: 403,
    message: '{"ERROR":"<site code>","MESSAGE":"<site text>"}',
    meaning:
      'the site\'s gateway refused; the message is JSON text {"ERROR","MESSAGE"} with the site\'s code and text',
    fix: 'The site decided: its own code and message say why.',
  },
  LICENSE_EXPIRED: {
    serviceCode: '8711',
    status: 403,
    message: 'Playback period is over',
    meaning:
      'expire_date / PD_END is past, or license_duration, rental_duration or playback_duration is over (says which)',
    fix: 'The site must grant a later expire_date or a longer duration.',
  },
  LICENSE_NOT_YET_VALID: {
    serviceCode: '8710',
    status: 403,
    message: 'Playback period not started',
    meaning: 'the gateway PD_START lies in the future',
    fix: 'Playback may not begin before the start of the period the site granted.',
  },
  NO_KEY_FOR_CID: {
    serviceCode: '7001',
    status: 404,
    message: 'No packaging information for the content',
    meaning: 'no external key was given and no key is configured for the cid',
    fix: 'Add the content keys of the cid to "keys" in the emulator config, or send them as external_key.mpeg_cenc.',
  },
  CID_MISMATCH: {
    serviceCode: '7012',
    status: 403,
    message: 'Content ID mismatch',
    meaning:
      'the requested key IDs belong to another configured cid than the token or custom data names',
    fix: 'Issue the token (or custom data) for the cid of the content being played.',
  },
  KID_NOT_LICENSED: {
    serviceCode: '6004',
    status: 403,
    message: 'Key ID is not a key of the content',
    meaning: 'a requested key ID is not among the keys of the cid',
    fix: 'Package the content with the keys configured for its cid (or send the right external keys).',
  },
  STREAM_LIMIT_REACHED: {
    serviceCode: '6003',
    status: 403,
    message: 'Concurrent stream limit reached',
    meaning:
      'the user already has max_stream_per_user streams that renew in time (see the stream model)',
    fix: 'Stop another stream of the user, or wait until it stops renewing (its renewal interval plus streamGraceSeconds).',
  },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    meaning: 'a browser origin outside allowedOrigins made the request',
    fix: 'Add the origin to allowedOrigins in the emulator config ("*" allows any).',
  },
  HOST_NOT_ALLOWED: {
    status: 403,
    meaning:
      'the Host header is neither a loopback name with the port the emulator listens on nor in allowedHosts (a DNS-rebinding page would send its own name)',
    fix: 'Call the emulator as http://localhost:<port> or http://127.0.0.1:<port>, or add the host to allowedHosts in the emulator config ("*" allows any).',
  },
  NOT_FOUND: {
    status: 404,
    meaning:
      'no such path (the emulator serves POST /ri/licenseManager.do, the GET certificate paths, GET /events, GET /health)',
    fix: 'POST license requests to /ri/licenseManager.do (or /license).',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'the path exists but not with this method',
    fix: 'License requests are POST; /events and /health are GET.',
  },
  TOO_MANY_EVENT_STREAMS: {
    status: 429,
    meaning: 'GET /events already has as many subscribers as it serves at once (default 32)',
    fix: 'Close an event stream you no longer read, or raise the eventStreams.max option.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'the license request body is larger than 64 KiB',
    fix: 'Send the CDM license request unchanged: it is a few hundred bytes.',
  },
  INTERNAL_ERROR: {
    status: 500,
    meaning: 'a bug in the emulator; the message says no more than that',
    fix: 'Report it with the emulator log.',
  },
} as const satisfies Record<
  string,
  { serviceCode?: string; status: number; message?: string; meaning: string; fix: string }
>;

/**
 * A named reason of {@link ERROR_CODES}: every refusal and transport failure the emulator answers
 * with.
 */
export type EmulatorErrorCode = keyof typeof ERROR_CODES;

/** The reasons that refuse a license request: each has a service code. */
export type RefusalReason = {
  [K in EmulatorErrorCode]: (typeof ERROR_CODES)[K] extends { serviceCode: string } ? K : never;
}[EmulatorErrorCode];

/**
 * Every {@link RefusalReason}: the codes that `errorCodes` in the config may map to other service
 * codes.
 */
export const REFUSAL_REASONS = (Object.keys(ERROR_CODES) as EmulatorErrorCode[]).filter(
  (code): code is RefusalReason => 'serviceCode' in ERROR_CODES[code],
);

export function isRefusalReason(code: EmulatorErrorCode): code is RefusalReason {
  return 'serviceCode' in ERROR_CODES[code];
}

/** Body of a failure in the `explain` dialect, and of a transport failure in both dialects. */
export interface ErrorBody {
  error_code: EmulatorErrorCode;
  message: string;
  detail?: Record<string, unknown>;
}

/** Body of a refusal in the service dialect (HTTP 200): the service's members, then ours. */
export interface ServiceRefusalBody {
  errorCode: string;
  message: string;
  /** Ours from here on: a client of the real service reads only errorCode and message. */
  reason: RefusalReason;
  field?: string;
  fix: string;
  detail: string;
}

export interface EmulatorErrorOptions {
  cause?: unknown;
  /** The member that failed, as a path (e.g. "timestamp", "policy.playback_policy.license_duration"). */
  field?: string;
  /**
   * Facts for the events only (the fault that struck), never a key or a token, and never what tells
   * apart failures that must look the same (which step of opening custom data failed).
   */
  eventFacts?: Record<string, unknown>;
  /** The service message when it is not the reason's fixed one (8002 carries the site's). */
  serviceMessage?: string;
}

/**
 * Why the emulator refused or failed a request; `code` picks the service code, status and fix from
 * {@link ERROR_CODES}.
 */
export class EmulatorError extends Error {
  override name = 'EmulatorError';
  readonly code: EmulatorErrorCode;
  /** Machine-readable facts for the explain dialect and the events; never a key or a token. */
  readonly detail: Record<string, unknown> | undefined;
  readonly field: string | undefined;
  readonly eventFacts: Record<string, unknown> | undefined;
  readonly serviceMessage: string | undefined;

  /** `message` is the full explanation: what went wrong, with the numbers, and what to do. */
  constructor(
    code: EmulatorErrorCode,
    message: string,
    detail?: Record<string, unknown>,
    options: EmulatorErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = detail;
    this.field = options.field;
    this.eventFacts = options.eventFacts;
    this.serviceMessage = options.serviceMessage;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  /** The JSON body of the `explain` dialect (and of transport failures in both dialects). */
  toBody(): ErrorBody {
    return this.detail === undefined
      ? { error_code: this.code, message: this.message }
      : { error_code: this.code, message: this.message, detail: this.detail };
  }
}
