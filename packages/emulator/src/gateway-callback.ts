import {
  GatewayResponseError,
  answerNonce,
  decodeGatewayResponseAsync,
  encodeGatewayRequestAsync,
  SiteKitError,
  SUCCESS_CODE,
  type GatewayAnswer,
  type GatewayRequest,
} from '@multidrm/site-kit';
import type { SiteConfig } from './config.ts';
import type { ClientCodeOf } from './dialect.ts';
import { EmulatorError, type EmulatorErrorCode } from './errors.ts';
import type { FlowRecorder } from './events.ts';
import type { Post, PostAnswer } from './http/callback-post.ts';

const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The callback of the spec's gateway workflow: POSTs the encrypted request to the site's gateway
 * with a time limit, then decrypts the answer and checks its schema and nonce. Each way it can fail
 * has its own error code; the site's own refusal (error_code other than "0000") is returned, not
 * thrown, for the caller to report.
 */
export async function callGateway(
  site: SiteConfig,
  url: string,
  request: GatewayRequest,
  flow: FlowRecorder,
  options: { post: Post; timeoutMs: number; codeOf: ClientCodeOf },
): Promise<GatewayAnswer> {
  const body = await encodeGatewayRequestAsync(request, site.siteKey);
  const started = flow.elapsedMs();
  const answered = (fields: {
    ok: boolean;
    httpStatus?: number;
    siteErrorCode?: string;
    errorCode?: string;
    reason?: string;
    warning?: string;
  }) =>
    flow.emit({
      type: 'callback-answered',
      durationMs: Math.round((flow.elapsedMs() - started) * 100) / 100,
      ...fields,
    });
  flow.emit({
    type: 'callback-sent',
    siteId: site.siteId,
    gatewayUrl: withoutQuery(url),
    format: request.format,
    userId: request.user_id,
    cid: request.cid,
    drmType: request.drm_type ?? 'PlayReady',
  });
  const limit = options.timeoutMs;
  let status: number | undefined;
  try {
    let response: PostAnswer;
    try {
      response = await options.post(url, body, limit);
    } catch (error) {
      throw fetchFailure(error, site, limit);
    }
    status = response.status;
    if (status < 200 || status > 299) {
      await response.discard();
      throw new EmulatorError(
        'GATEWAY_BAD_STATUS',
        `The gateway of site "${site.siteId}" answered HTTP ${status}; a gateway answers 200 with the encrypted answer as the body, even when it refuses (error_code other than "0000").`,
        { siteId: site.siteId, httpStatus: status },
      );
    }
    let text: string | undefined;
    try {
      text = await response.text(MAX_ANSWER_BYTES);
    } catch (error) {
      throw fetchFailure(error, site, limit);
    }
    if (text === undefined) {
      throw new EmulatorError(
        site.gatewayFormat === 'xml' ? 'GATEWAY_BAD_XML' : 'GATEWAY_BAD_RESPONSE',
        `The gateway of site "${site.siteId}" answered more than ${MAX_ANSWER_BYTES} bytes; an answer is one encrypted message.`,
        { siteId: site.siteId },
      );
    }
    const answer = await decodeAnswer(text, site);
    const nonce = answerNonce(answer);
    const siteCode = answer.format === 'json' ? answer.error_code : answer.ERROR;
    // A refusal without nonce still says no: the site's code must reach the player (the service's
    // own public gateway sample sends one, so it is worth a warning). An allowing answer without it
    // never gets here: site-kit's reader refuses it.
    if (nonce === undefined && siteCode !== SUCCESS_CODE) {
      answered({
        ok: false,
        httpStatus: status,
        siteErrorCode: siteCode,
        warning: 'the refusal carries no nonce; it is taken as a refusal all the same',
      });
      return answer;
    }
    if (nonce !== request.nonce) {
      throw new EmulatorError(
        'NONCE_MISMATCH',
        `The gateway of site "${site.siteId}" answered with another nonce than the callback carried: the answer must return the request's nonce unchanged (is it cached, or an answer to another request?).`,
        { siteId: site.siteId },
      );
    }
    answered({ ok: siteCode === SUCCESS_CODE, httpStatus: status, siteErrorCode: siteCode });
    return answer;
  } catch (error) {
    if (error instanceof EmulatorError) {
      answered({
        ok: false,
        ...(status === undefined ? {} : { httpStatus: status }),
        errorCode: options.codeOf(error.code),
        reason: error.code,
      });
    }
    throw error;
  }
}

async function decodeAnswer(text: string, site: SiteConfig): Promise<GatewayAnswer> {
  try {
    return await decodeGatewayResponseAsync(text, site.gatewayFormat, site.siteKey);
  } catch (error) {
    if (!(error instanceof SiteKitError)) throw error;
    if (error.code === 'INVALID_GATEWAY_RESPONSE') {
      throw new EmulatorError(
        answerReason(error, site.gatewayFormat),
        `The gateway of site "${site.siteId}" answered something unusable: ${error.message}`,
        { siteId: site.siteId },
        { cause: error },
      );
    }
    throw new EmulatorError(
      'GATEWAY_DECRYPT_FAILED',
      `The answer of the gateway of site "${site.siteId}" does not decrypt with the site key: ${error.message} The answer must be base64(aes256(${site.gatewayFormat.toUpperCase()})) made with the same site key.`,
      { siteId: site.siteId },
      { cause: error },
    );
  }
}

/** The service's table has its own codes for a broken playback period and output settings. */
function answerReason(error: SiteKitError, format: 'json' | 'xml'): EmulatorErrorCode {
  const fallback = format === 'xml' ? 'GATEWAY_BAD_XML' : 'GATEWAY_BAD_RESPONSE';
  if (!(error instanceof GatewayResponseError) || error.member === undefined) return fallback;
  const output = OUTPUT_REASONS[error.member];
  if (output !== undefined) return output;
  if (!PERIOD_MEMBERS.has(error.member)) return fallback;
  if (error.problem === 'format') return 'GATEWAY_PERIOD_FORMAT';
  return error.problem === 'order' ? 'GATEWAY_PERIOD_ORDER' : 'GATEWAY_PERIOD_INVALID';
}

const PERIOD_MEMBERS = new Set(['PD_START', 'PD_END', 'playback_policy.expire_date']);
const OUTPUT_REASONS: Partial<Record<string, EmulatorErrorCode>> = {
  'PC.HDCP': 'GATEWAY_HDCP_INVALID',
  'PC.CGMS-A': 'GATEWAY_CGMS_INVALID',
  'PC.APS': 'GATEWAY_APS_INVALID',
};

function fetchFailure(error: unknown, site: SiteConfig, limitMs: number): EmulatorError {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new EmulatorError(
      'GATEWAY_TIMEOUT',
      `The gateway of site "${site.siteId}" did not answer within ${limitMs} ms (gatewayTimeoutMs): check that it is running and answers quickly.`,
      { siteId: site.siteId, timeoutMs: limitMs },
    );
  }
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return new EmulatorError(
    'GATEWAY_UNREACHABLE',
    `The gateway of site "${site.siteId}" could not be reached${typeof cause === 'string' ? ` (${cause})` : ''}: check its gatewayUrl in the emulator config and that the site is running.`,
    { siteId: site.siteId, ...(typeof cause === 'string' ? { cause } : {}) },
  );
}

// Gateway URLs come from the config: a handful, each shortened once.
const shortened = new Map<string, string>();

function withoutQuery(url: string): string {
  let short = shortened.get(url);
  if (short === undefined) {
    const u = new URL(url);
    short = `${u.origin}${u.pathname}`;
    if (shortened.size >= 1000) shortened.clear();
    shortened.set(url, short);
  }
  return short;
}
