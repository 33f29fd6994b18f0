import { bytesToText, toBytes, type BufferLike } from './bytes.ts';
import { LicenseServiceError } from './errors.ts';

export interface ServiceErrorBody {
  errorCode: string;
  message: string;
  detail?: unknown;
}

/**
 * Reads a license-service error body: JSON with an error code and a message, e.g.
 * `{"error_code":"TOKEN_EXPIRED","message":"...","detail":"..."}`. A license is never such an
 * object (ClearKey licenses are JSON with `keys`, FairPlay JSON wraps a `ckc`), so anything else is
 * `null`.
 */
export function parseServiceError(
  data: BufferLike | string | null | undefined,
): ServiceErrorBody | null {
  if (data == null) return null;
  const text = (typeof data === 'string' ? data : bytesToText(toBytes(data))).trim();
  if (!text.startsWith('{') || text.length > 65536) return null;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || 'keys' in body || 'ckc' in body) return null;
  const code = body['error_code'] ?? body['errorCode'] ?? body['code'];
  const message = body['message'] ?? body['error_message'];
  if ((typeof code !== 'string' && typeof code !== 'number') || String(code) === '0000')
    return null;
  const detail = body['detail'];
  return {
    errorCode: String(code),
    message: typeof message === 'string' ? message : '',
    ...(detail !== undefined ? { detail } : {}),
  };
}

// What the app can do about the codes the license service is known to send; anything else gets the
// general advice.
const HINTS: Readonly<Record<string, string>> = {
  TOKEN_EXPIRED: 'check the site clock (UTC) and fetch tokens close to playback',
  TOKEN_NOT_YET_VALID: 'check the site clock (UTC)',
  HASH_MISMATCH: 'the site and the service disagree on the site access key',
  DECRYPT_FAILED: 'the site and the service disagree on the site key',
};

export function toServiceError(
  body: ServiceErrorBody,
  context: { status: number; url: string; keySystem: string; drmType: string; cid?: string },
): LicenseServiceError {
  const hint =
    HINTS[body.errorCode] ??
    "check the site's settings (site ID, keys, drm_type) against the service's";
  const what = context.cid ? ` for cid "${context.cid}"` : '';
  const said = body.message ? `: ${body.message}` : '';
  return new LicenseServiceError(
    {
      ...body,
      serviceMessage: body.message,
      status: context.status,
      url: context.url,
      keySystem: context.keySystem,
    },
    `The license service refused the ${context.drmType} license${what} (${body.errorCode}${said}, HTTP ${context.status}); ${hint}.`,
  );
}
