import * as z from 'zod/mini';
import { SiteKitError } from '../errors.ts';
import type { DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { checkMaxBodyBytes } from './body.ts';
import { createCors, type CorsOptions } from './cors.ts';
import { refusalSchema } from './decision-schemas.ts';
import { checkTimeoutMs, withDeadline } from './deadline.ts';
import { errorClassOf } from './error-class.ts';
import { methodNotAllowed, payloadTooLarge, textAnswer } from './exchange.ts';
import { toWebHandler, type WebHandler } from './web.ts';
import { createRequestGuard, type RequestGuardOptions } from './request-guard.ts';
import { parsePlayerRequest, type PlayerRequest } from './site-request.ts';
import { isPlainObject } from '../schemas/plain-object.ts';
import { rateHeaders, type SiteRateLimit } from '../rate-limit/verdict.ts';

/** The site's refusal: 401 when the user is not signed in, 403 when not entitled. */
export interface SiteRefusal {
  allow: false;
  status: 401 | 403;
  reason: string;
}

/** What a site endpoint reports to `onEvent`; tokens and custom data are never included. */
export type SiteEndpointEvent =
  | { type: 'request'; cid: string; drm_type: DrmType }
  | {
      type: 'decision';
      cid: string;
      drm_type: DrmType;
      allow: boolean;
      status: number;
      user_id?: string;
    }
  | { type: 'rejected'; status: 400 | 403 | 405 | 413 | 415 | 429 | 503; reason: string }
  /** `reason` names the class of what the site's code threw, never its message. */
  | { type: 'error'; status: 500 | 503; reason: string };

/** What `authorize` gets besides the request: `signal` aborts when its deadline passes. */
export interface AuthorizeContext {
  signal: AbortSignal;
}

/** Options the token and custom-data endpoints share. */
export interface SiteEndpointCommonOptions {
  /** Off unless given. */
  cors?: CorsOptions;
  /** Default 16 KiB. */
  maxBodyBytes?: number;
  /** Structured events without secrets, for logs. */
  onEvent?: (event: SiteEndpointEvent) => void;
  /**
   * Receives what `authorize` (or the answer's making) threw, as thrown: it is the site's own error
   * and may hold anything. `onEvent` gets only its class.
   */
  onError?: (error: unknown, asked: PlayerRequest) => void;
  /**
   * How long `authorize` may take, in ms; default 5000. Past it the player gets 503 with
   * Retry-After, the request is freed and `authorize`'s signal is aborted.
   */
  authorizeTimeoutMs?: number;
  /**
   * Refuse what cannot be a player's request (CSRF): a content type other than application/json
   * (415), a cross-site request from an origin not in `cors.origins` (403). On by default; `false`
   * turns it off for a site that checks this itself.
   */
  requestGuard?: RequestGuardOptions | false;
  /**
   * Off unless given: `createRateLimit(...)` counts each client address before the body is read
   * and each user once `authorize` names one, and answers 429 with Retry-After past a budget.
   */
  rateLimit?: SiteRateLimit;
}

export interface SiteEndpointOptions<D extends { allow: true }> extends SiteEndpointCommonOptions {
  authorize: (
    request: Request,
    player: PlayerRequest,
    context: AuthorizeContext,
  ) => D | SiteRefusal | Promise<D | SiteRefusal>;
  /** zod schema of the allow decision. */
  allowSchema: z.core.$ZodType<D>;
  /**
   * The usual allow decision read by hand, for a request that must not pay a zod parse: what the
   * schema's parse gives (members set to undefined may be left out), or undefined when not sure,
   * which leaves the decision to the schema.
   */
  readAllow?: (decision: unknown) => D | undefined;
  /** Builds the answer text; a SiteKitError becomes a 400 with its message. */
  produce: (decision: D, player: PlayerRequest) => string | Promise<string>;
  /** Headers of the answer made from this decision, besides CORS and the text's own. */
  answerHeaders?: (decision: D) => Record<string, string> | undefined;
}

const DEFAULT_MAX_BODY_BYTES = 16 * 1024;

const REFUSAL_MEMBERS = new Set(['allow', 'status', 'reason']);

/** refusalSchema's reading of a plain, well-formed refusal, by hand; undefined when not sure. */
export function readRefusal(value: unknown): SiteRefusal | undefined {
  if (!isPlainObject(value)) return undefined;
  const { allow, status, reason } = value as Record<string, unknown>;
  if (allow !== false || (status !== 401 && status !== 403)) return undefined;
  if (typeof reason !== 'string' || reason.length === 0) return undefined;
  let count = 0;
  for (const key in value) {
    if (!REFUSAL_MEMBERS.has(key)) return undefined;
    count++;
  }
  return count === 3 ? { allow, status, reason } : undefined;
}

/** The flow the token and custom-data endpoints share: CORS, method, body, authorize, answer. */
export function createSiteEndpoint<D extends { allow: true }>(
  options: SiteEndpointOptions<D>,
): WebHandler {
  const { authorize, allowSchema, produce } = options;
  if (typeof authorize !== 'function') {
    throw new SiteKitError(
      'INVALID_INPUT',
      'authorize: must be a function (request, { cid, drmType }) => decision.',
    );
  }
  const cors = createCors(options.cors);
  const guard = createRequestGuard(options.requestGuard);
  const timeoutMs = checkTimeoutMs(options.authorizeTimeoutMs, 'authorizeTimeoutMs');
  const onError = options.onError;
  const report = (error: unknown, asked: PlayerRequest): void => {
    try {
      onError?.(error, { ...asked });
    } catch {
      // The site's error reporter failing must not change the answer.
    }
  };
  const maxBytes = checkMaxBodyBytes(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const decisionSchema = z.union([allowSchema, refusalSchema]);
  const readAllow = options.readAllow;
  const rateLimit = options.rateLimit;
  const listener = options.onEvent;
  const emit = (event: SiteEndpointEvent): void => {
    try {
      listener?.(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };

  return toWebHandler(async (exchange) => {
    if (exchange.method === 'OPTIONS') return cors.preflight(exchange);
    let corsHeaders = cors.headers(exchange);
    const answer = (status: number, text: string) => textAnswer(status, text, corsHeaders);
    if (exchange.method !== 'POST') {
      emit({ type: 'rejected', status: 405, reason: `method ${exchange.method}` });
      return methodNotAllowed('POST', corsHeaders);
    }
    const refused = guard(exchange, cors.allows);
    if (refused !== undefined) {
      emit({ type: 'rejected', status: refused.status, reason: refused.reason });
      return answer(refused.status, refused.text);
    }
    if (rateLimit !== undefined) {
      const rated = await rateLimit.byAddress(() => exchange.request(), exchange.peerAddress?.());
      corsHeaders = rateHeaders(corsHeaders, rated);
      if (!rated.ok) {
        emit({ type: 'rejected', status: rated.status, reason: 'client address over its rate' });
        return answer(rated.status, rated.message);
      }
    }
    const body = await exchange.readBody(maxBytes);
    if (!body.ok) {
      if (body.tooLarge) {
        emit({ type: 'rejected', status: 413, reason: `body over ${maxBytes} bytes` });
        return payloadTooLarge(maxBytes, corsHeaders);
      }
      emit({ type: 'rejected', status: 400, reason: body.reason });
      return answer(400, `Bad request: ${body.reason}.`);
    }
    const player = parsePlayerRequest(body.text);
    if (!player.ok) {
      emit({ type: 'rejected', status: 400, reason: player.reason });
      return answer(400, player.reason);
    }
    const { cid, drmType } = player.value;
    emit({ type: 'request', cid, drm_type: drmType });

    const decided = await withDeadline(timeoutMs, (context) =>
      authorize(exchange.request(), { cid, drmType }, context),
    );
    if (!decided.ok && decided.timedOut) {
      emit({
        type: 'error',
        status: 503,
        reason: `authorize did not decide within ${timeoutMs} ms`,
      });
      return textAnswer(503, 'The site could not decide in time; try again later.', {
        ...corsHeaders,
        'retry-after': '1',
      });
    }
    if (!decided.ok) {
      report(decided.error, player.value);
      emit({
        type: 'error',
        status: 500,
        reason: `authorize threw ${errorClassOf(decided.error)}; the error itself went to onError`,
      });
      return answer(500, 'The site could not decide; try again later.');
    }
    const known = readAllow?.(decided.value) ?? readRefusal(decided.value);
    const parsed =
      known === undefined
        ? decisionSchema.safeParse(decided.value)
        : { success: true as const, data: known };
    if (!parsed.success) {
      emit({
        type: 'error',
        status: 500,
        reason: `authorize answered a decision that breaks its shape: ${describeIssues(parsed.error, 'decision')}.`,
      });
      return answer(500, 'The site could not decide; try again later.');
    }
    const decision = parsed.data as D | SiteRefusal;
    if (!decision.allow) {
      emit({ type: 'decision', cid, drm_type: drmType, allow: false, status: decision.status });
      return answer(decision.status, decision.reason);
    }
    const userId = (decision as { userId?: unknown }).userId;
    if (rateLimit !== undefined && typeof userId === 'string') {
      const rated = await rateLimit.byUser(userId);
      corsHeaders = rateHeaders(corsHeaders, rated);
      if (!rated.ok) {
        emit({ type: 'rejected', status: rated.status, reason: 'user over their rate' });
        return answer(rated.status, rated.message);
      }
    }
    let text: string;
    try {
      text = await produce(decision, player.value);
    } catch (error) {
      if (!(error instanceof SiteKitError)) {
        report(error, player.value);
        emit({
          type: 'error',
          status: 500,
          reason: `making the answer threw ${errorClassOf(error)}; the error itself went to onError`,
        });
        return answer(500, 'The site could not answer; try again later.');
      }
      emit({ type: 'rejected', status: 400, reason: error.message });
      return answer(400, error.message);
    }
    emit({
      type: 'decision',
      cid,
      drm_type: drmType,
      allow: true,
      status: 200,
      ...(typeof userId === 'string' ? { user_id: userId } : {}),
    });
    const extra = options.answerHeaders?.(decision);
    return extra === undefined
      ? answer(200, text)
      : textAnswer(200, text, { ...corsHeaders, ...extra });
  });
}
