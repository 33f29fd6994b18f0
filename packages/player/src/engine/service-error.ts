import { bytesToText, toBytes, type BufferLike } from './bytes.ts';
import { LicenseServiceError, type ServiceLimit } from './errors.ts';

/**
 * A refusal as the license service sends it, `{"errorCode","message"}`, read from a license answer.
 */
export interface ServiceErrorBody {
  /** Digits as the service sends them (a string, or a number from some SDKs). */
  errorCode: string;
  message: string;
  detail?: unknown;
  /** 8002: the site's own code and text, read from the JSON text inside `message`. */
  siteErrorCode?: string;
  siteErrorMessage?: string;
}

/** The JSON object an answer holds, or `null` (binary licenses, XML, text, broken JSON). */
export function readJsonObject(
  data: BufferLike | string | null | undefined,
): Record<string, unknown> | null {
  if (data == null) return null;
  const text = (typeof data === 'string' ? data : bytesToText(toBytes(data))).trim();
  if (!text.startsWith('{')) return null;
  try {
    // Text that starts with "{" parses to an object, or not at all.
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * A token builder's own error, `{"error_code","error_message"}` with its codes 1000–1062: the
 * site's token code failed. Never the service's (its numbers overlap the service's): told apart
 * by shape, `null` for anything else.
 */
export function builderErrorOf(
  body: Record<string, unknown> | null,
): { code: string; message: string } | null {
  if (!body || !('error_message' in body) || 'errorCode' in body || 'message' in body) return null;
  const code = body['error_code'];
  if (typeof code !== 'string' && typeof code !== 'number') return null;
  const message = body['error_message'];
  return { code: String(code), message: typeof message === 'string' ? message : '' };
}

/**
 * The refusal in a parsed answer: the service sends `{"errorCode":"7011","message":"..."}` with
 * HTTP 200, and such a body is a refusal whatever else it holds (a `license` too). The emulator's
 * explanations and some proxies spell the code `error_code` or `code` beside a `message`: a
 * refusal too, unless the body is a license (ClearKey `keys`, FairPlay `ckc`, a json-format
 * `license`) or a token builder's error. `0000` is the success code of gateway answers.
 */
export function refusalOf(body: Record<string, unknown> | null): ServiceErrorBody | null {
  if (!body) return null;
  const service = 'errorCode' in body;
  if (!service && ('keys' in body || 'ckc' in body || 'license' in body || builderErrorOf(body))) {
    return null;
  }
  const code = service ? body['errorCode'] : (body['error_code'] ?? body['code']);
  if ((typeof code !== 'string' && typeof code !== 'number') || String(code) === '0000')
    return null;
  const message = body['message'];
  const said = typeof message === 'string' ? message : '';
  // 8002 carries the site's gateway refusal as JSON text; anything else in it is kept as said.
  const site = readJsonObject(said);
  const siteCode = site?.['ERROR'];
  const siteText = site?.['MESSAGE'];
  return {
    errorCode: String(code),
    message: said,
    ...(body['detail'] !== undefined && { detail: body['detail'] }),
    ...(siteCode != null && { siteErrorCode: String(siteCode) }),
    ...(typeof siteText === 'string' && { siteErrorMessage: siteText }),
  };
}

/** Reads a license-service refusal from an answer body; `null` when the body is not one. */
export function parseServiceError(
  data: BufferLike | string | null | undefined,
): ServiceErrorBody | null {
  return refusalOf(readJsonObject(data));
}

// What the app can do about a refusal, by the service's code (and the project's own 6xxx codes);
// other codes get the general advice.
const SITE_KEY = 'the site and the service disagree on the site key';
const CID = 'check the cid (the one used at packaging)';
const CLOCK = 'check the site clock (UTC)';
const HINTS: Readonly<Record<string, string>> = {
  1003: 'check the site ID',
  7001: CID,
  7007: SITE_KEY,
  7008: SITE_KEY,
  7011: `${CLOCK} and the token's validity window`,
  7012: CID,
  7018: 'check drm_type (drmTypes)',
  7019: 'the site and the service disagree on the site access key',
  8002: "the site's gateway refused this user",
  8701: "the service could not reach the site's gateway",
  6003: 'the user has reached the concurrent stream limit',
  8710: 'the playback period has not started',
  8711: 'the playback period is over',
};

/** The policy limits the service's codes name. */
const LIMITS: Readonly<Record<string, ServiceLimit>> = { 6003: 'streams', 8711: 'playback-period' };

/**
 * The refusal `body` of a license request `x` (its renewal, its re-send with a fresh token) as a
 * `LicenseServiceError` that says what to fix.
 */
export function toServiceError(
  x: {
    keySystem: string;
    drmType: string;
    cid?: string;
    /** The refusal came back for the request re-sent with a fresh token. */
    renewed?: boolean;
    /** The EME message type: `license-renewal` for a renewal. */
    type?: string | null;
  },
  body: ServiceErrorBody,
  status: number,
  url: string,
): LicenseServiceError {
  const { errorCode, message, siteErrorCode, siteErrorMessage } = body;
  const hint =
    HINTS[errorCode] ?? "check the site's settings (site ID, keys, drm_type) against the service's";
  const what = x.cid ? ` for cid "${x.cid}"` : '';
  const said =
    siteErrorCode !== undefined
      ? `: site code ${siteErrorCode}${siteErrorMessage ? ` "${siteErrorMessage}"` : ''}`
      : message
        ? `: ${message}`
        : '';
  const again = x.renewed ? ', again with a fresh token' : '';
  return new LicenseServiceError(
    {
      errorCode,
      serviceMessage: message,
      detail: body.detail,
      siteErrorCode,
      siteErrorMessage,
      status,
      url,
      keySystem: x.keySystem,
      limit: LIMITS[errorCode],
      ...(x.type === 'license-renewal' && { renewal: true }),
    },
    `The license service refused the ${x.drmType} license${what} (${errorCode}${said}, HTTP ${status}${again}); ${hint}.`,
  );
}
