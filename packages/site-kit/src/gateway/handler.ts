import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { SiteKitError } from '../errors.ts';
import { checkMaxBodyBytes } from '../http/body.ts';
import { methodNotAllowed, payloadTooLarge, textAnswer, type Answer } from '../http/exchange.ts';
import { readDataParameter } from '../http/form-body.ts';
import { toWebHandler, type WebHandler } from '../http/web.ts';
import { describeIssues } from '../schemas/issues.ts';
import { serializeGatewayAnswer, type GatewayAnswer } from './answer.ts';
import { buildAnswer } from './build-answer.ts';
import { errorMessage, resolveErrorCodes, type GatewayErrorKind } from './codes.ts';
import { gatewayDecisionSchema, type GatewayDecision } from './decision.ts';
import { emitter, type GatewayEventListener } from './events.ts';
import { jsonAnswerText } from './fast-answer.ts';
import { readGatewayRequest, readGatewayRequestSync } from './read-request.ts';
import type { GatewayFormat, GatewayRequest } from './request.ts';

/**
 * Options of the site's gateway page, the callback the license service makes for each license
 * request in gateway mode.
 */
export interface GatewayHandlerOptions {
  /** Site key (AES-256 key): 32 characters, or 32 raw bytes. */
  siteKey: SiteKeyInput;
  /** The site's decision for one license request; may be async. */
  authorize: (request: GatewayRequest) => GatewayDecision | Promise<GatewayDecision>;
  /** Larger bodies get 413 without being read whole; default 64 KiB. */
  maxBodyBytes?: number;
  /** Structured events without secrets, for logs. */
  onEvent?: GatewayEventListener;
  /** The clock for PD_START / PD_END of XML answers; default Date.now. */
  now?: () => number;
  /**
   * The codes site-kit answers with when `authorize` never decided (defaults 9001, 9002, 9003, see
   * GATEWAY_ERROR_CODES); pick others when the site's own codes use these.
   */
  errorCodes?: Partial<Record<GatewayErrorKind, string>>;
  /**
   * Receives what `authorize` threw, as thrown: it is the site's own error and may hold anything.
   * `onEvent` gets only its class name.
   */
  onAuthorizeError?: (error: unknown, request: GatewayRequest) => void;
}

// One answer, identical in status, headers and body, for every body that cannot be decrypted and
// parsed. The spec's AES-CBC has a fixed IV and no MAC: telling bad padding apart from bad JSON
// would let anyone decrypt captured gateway messages (which can carry content keys) byte by byte.
const BAD_REQUEST_TEXT =
  'Bad request: the body must be data=<base64 of the AES-256 encrypted request>.';

/** The site's gateway page on the given crypto: a web-standard handler the license service calls back. */
export function createGatewayHandlerWith<K>(
  crypto: AsyncCrypto<K>,
  options: GatewayHandlerOptions,
): WebHandler {
  const key = crypto.key(options?.siteKey);
  const { authorize } = options;
  if (typeof authorize !== 'function') {
    throw new SiteKitError('INVALID_INPUT', 'authorize: must be a function (request) => decision.');
  }
  const maxBytes = checkMaxBodyBytes(options.maxBodyBytes);
  const emit = emitter(options.onEvent);
  // Events are built only for a listener: a request without one makes no event objects.
  const listening = options.onEvent !== undefined;
  // node:crypto answers at once: no promise steps for work that never waits.
  const sync = crypto.sync;
  const now = options.now ?? Date.now;
  const codes = resolveErrorCodes(options.errorCodes);

  const badRequest = (reason: string): Answer => {
    emit({ type: 'rejected', status: 400, reason });
    return textAnswer(400, BAD_REQUEST_TEXT);
  };

  const encryptedText = (text: string): Answer | Promise<Answer> =>
    sync === undefined
      ? crypto.encrypt(text, key).then((data) => textAnswer(200, data))
      : textAnswer(200, sync.encrypt(text, key));
  const encrypted = (answer: GatewayAnswer): Answer | Promise<Answer> =>
    encryptedText(serializeGatewayAnswer(answer));

  const failure = (
    kind: GatewayErrorKind,
    format: GatewayFormat,
    nonce: string | undefined,
    reason: string,
  ): Answer | Promise<Answer> => {
    const code = codes[kind];
    emit({ type: 'error', kind, error_code: code, format, nonce, reason });
    const message = errorMessage(kind);
    const answer: GatewayAnswer =
      format === 'json'
        ? { format, error_code: code, error_message: message, nonce: nonce ?? '' }
        : { format, ERROR: code, ERRMSG: message, NONCE: nonce ?? '' };
    return encrypted(answer);
  };

  return toWebHandler(async (exchange) => {
    if (exchange.method !== 'POST') {
      emit({ type: 'rejected', status: 405, reason: `method ${exchange.method}` });
      return methodNotAllowed('POST');
    }
    const body = await exchange.readBody(maxBytes);
    if (!body.ok) {
      if (!body.tooLarge) return badRequest(body.reason);
      emit({ type: 'rejected', status: 413, reason: `body over ${maxBytes} bytes` });
      return payloadTooLarge(maxBytes);
    }
    const data = readDataParameter(body.text);
    if (data === undefined) return badRequest('the body has no data parameter');
    const read =
      sync === undefined
        ? await readGatewayRequest(crypto, data, key)
        : readGatewayRequestSync(() => sync.open(data, key));
    if (!read.ok) {
      if (read.stage === 'unreadable') return badRequest(read.reason);
      return failure('INVALID_REQUEST', read.format, read.nonce, read.reason);
    }
    const req = read.request;
    if (listening) {
      emit({
        type: 'request',
        format: req.format,
        user_id: req.user_id,
        cid: req.cid,
        oid: req.oid,
        drm_type: req.drm_type,
        nonce: req.nonce,
      });
    }

    const started = listening ? performance.now() : 0;
    let decided: unknown;
    try {
      decided = authorize({ ...req });
      // A decision made at once is used at once; a promise (or any thenable) is awaited.
      if (isThenable(decided)) decided = await decided;
    } catch (error) {
      reportAuthorizeError(options.onAuthorizeError, error, req);
      return failure(
        'AUTHORIZE_FAILED',
        req.format,
        req.nonce,
        `authorize threw ${kindOf(error)}; the error itself went to onAuthorizeError`,
      );
    }
    // The usual JSON decision is checked and written by hand; anything else goes to the schema.
    const fast = req.format === 'json' ? jsonAnswerText(decided, req.nonce) : undefined;
    if (fast !== undefined) {
      if (listening) {
        emit({
          type: 'decision',
          format: req.format,
          user_id: req.user_id,
          cid: req.cid,
          allow: fast.allow,
          error_code: fast.error_code,
          ms: performance.now() - started,
        });
      }
      return encryptedText(fast.text);
    }
    const parsed = gatewayDecisionSchema.safeParse(decided);
    if (!parsed.success) {
      return failure(
        'INVALID_DECISION',
        req.format,
        req.nonce,
        `authorize answered a decision that breaks the spec: ${describeIssues(parsed.error, 'decision')}.`,
      );
    }
    const decision = parsed.data as GatewayDecision;
    const built = buildAnswer(decision, req.format, req.nonce, now());
    if (!built.ok) {
      return failure('INVALID_DECISION', req.format, req.nonce, built.reason);
    }
    emit({
      type: 'decision',
      format: req.format,
      user_id: req.user_id,
      cid: req.cid,
      allow: decision.allow,
      error_code: decision.allow ? '0000' : decision.error_code,
      ms: performance.now() - started,
    });
    return encrypted(built.answer);
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

// The class only: a message is the site's own text and may carry a secret or a user's data.
function kindOf(error: unknown): string {
  if (error instanceof Error) return `an error of class ${error.constructor.name || 'Error'}`;
  return `a non-Error value (${error === null ? 'null' : typeof error})`;
}

function reportAuthorizeError(
  listener: GatewayHandlerOptions['onAuthorizeError'],
  error: unknown,
  request: GatewayRequest,
): void {
  try {
    listener?.(error, { ...request });
  } catch {
    // The site's error reporter failing must not change the answer.
  }
}
