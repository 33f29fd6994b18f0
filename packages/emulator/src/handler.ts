import { parseConfig, type EmulatorConfig, type EmulatorConfigInput } from './config.ts';
import { clientCodes, deniedEvent, failureAnswer, serviceCodes } from './dialect.ts';
import { EmulatorError } from './errors.ts';
import { createFlowRecorder, FlowEvents, type FlowRecorder } from './events.ts';
import { FaultPlan } from './faults/fault-plan.ts';
import type { FaultInput } from './faults/fault-schema.ts';
import type { GatewayOptions } from './gateway-mode.ts';
import { createCorsPolicy } from './http/cors.ts';
import {
  answerJson,
  answerOf,
  callOfRequest,
  responseOf,
  withCore,
  type Answer,
  type Call,
} from './http/exchange.ts';
import {
  DEFAULT_EVENT_STREAM_LIMITS,
  eventStreamResponse,
  type EventStreamLimits,
} from './http/sse.ts';
import { CERTIFICATE_PATHS, certificateAnswer, isCertificatePath } from './certificates.ts';
import { createLicenseFlow } from './license-flow.ts';
import { STREAM_ID_HEADER } from './stream-id.ts';
import { randomHex } from './web/crypto.ts';

/**
 * Options of {@link createEmulatorHandler}: where events go, the clock, injected faults and the
 * fetch for gateway callbacks.
 */
export interface EmulatorHandlerOptions extends GatewayOptions {
  /** Where flow events go; default a new emitter, available as `handler.events`. */
  events?: FlowEvents;
  /** The wall clock in ms since the epoch, for token validity, policy windows and streams; default Date.now. */
  now?: () => number;
  /** Called with errors that are bugs of the emulator (answered as INTERNAL_ERROR). */
  onInternalError?: (error: unknown) => void;
  /** Faults to inject, after those of the config (see the README's Faults). */
  faults?: readonly FaultInput[];
  /**
   * Bounds of `GET /events`: `max` subscribers at once (default 32; one more gets 429), and per
   * subscriber `bufferBytes` held back and `cutAfterDropped` (see eventStreamResponse).
   */
  eventStreams?: Partial<EventStreamLimits> & { max?: number };
}

/** How many `GET /events` subscribers may be open at once by default. */
export const DEFAULT_MAX_EVENT_STREAMS = 32;

/**
 * The emulator as a web-standard handler (`Request` in, `Response` out), with its events, config
 * and faults.
 */
export interface EmulatorHandler {
  /**
   * Answers one request; failures become responses rather than rejections (a bug: INTERNAL_ERROR,
   * HTTP 500).
   */
  (request: Request): Promise<Response>;
  /** The flow events of every license request. */
  readonly events: FlowEvents;
  /** The validated config, defaults applied. */
  readonly config: EmulatorConfig;
  /** The faults injected on purpose: `set`, `add`, `clear`, `list` while it runs. */
  readonly faults: FaultPlan;
}

/** The license service's path, its ClearKey path, and the emulator's first one. */
export const LICENSE_PATHS = [
  '/ri/licenseManager.do',
  '/ri/clearkey/licenseManager.do',
  '/license',
] as const;
const isLicensePath = (path: string) => (LICENSE_PATHS as readonly string[]).includes(path);

/**
 * The license service stand-in as a web-standard handler: `POST /ri/licenseManager.do` (and its
 * aliases), `GET /events`, `GET /health`, and CORS preflights. The config is validated here, once;
 * keys are derived once.
 */
export function createEmulatorHandler(
  input: EmulatorConfigInput | EmulatorConfig,
  options: EmulatorHandlerOptions = {},
): EmulatorHandler {
  const config = parseConfig(input);
  const events = options.events ?? new FlowEvents();
  const now = options.now ?? Date.now;
  const codeOf = serviceCodes(config.errorCodes);
  const faults = new FaultPlan([...config.faults, ...(options.faults ?? [])]);
  const license = createLicenseFlow(config, {
    ...options,
    now,
    codeOf: clientCodes(config.dialect, codeOf),
    faults,
  });
  const cors = createCorsPolicy(config.allowedOrigins, [config.customDataHeader, STREAM_ID_HEADER]);
  const header = config.customDataHeader;
  const startedAt = now();
  const { max: maxStreams = DEFAULT_MAX_EVENT_STREAMS, ...streamLimits } =
    options.eventStreams ?? {};
  const limits: EventStreamLimits = { ...DEFAULT_EVENT_STREAM_LIMITS, ...streamLimits };
  let openStreams = 0;

  function eventStream(corsHeaders: Record<string, string>): Answer {
    if (openStreams >= maxStreams) {
      throw new EmulatorError(
        'TOO_MANY_EVENT_STREAMS',
        `GET /events already has ${maxStreams} subscribers, the most it serves at once: close one, or raise eventStreams.max.`,
        { max: maxStreams },
      );
    }
    openStreams++;
    return answerOf(eventStreamResponse(events, corsHeaders, limits, () => openStreams--));
  }

  function health(): Answer {
    return answerJson({
      status: 'ok',
      uptimeSeconds: Math.round((now() - startedAt) / 1000),
      sites: config.sites.map((s) => ({
        siteId: s.siteId,
        mode: s.gatewayUrl === undefined ? 'token' : `token+gateway(${s.gatewayFormat})`,
      })),
      cids: Object.keys(config.keys),
      customDataHeader: header,
      dialect: config.dialect,
      licensePath: LICENSE_PATHS[0],
    });
  }

  async function route(
    call: Call,
    flow: FlowRecorder,
    corsHeaders: Record<string, string>,
  ): Promise<Answer> {
    const pathname = call.path;
    const certificate = isCertificatePath(pathname);
    // The ClearKey path also takes a GET with siteId and cid (wire addendum, section 7).
    const clearKeyGet = pathname === LICENSE_PATHS[1] && call.method === 'GET';
    const method = clearKeyGet
      ? 'GET'
      : isLicensePath(pathname)
        ? 'POST'
        : certificate
          ? 'GET'
          : GET_PATHS[pathname];
    if (method === undefined) {
      throw new EmulatorError(
        'NOT_FOUND',
        `No such path ${pathname}: the emulator serves POST /ri/licenseManager.do (also /ri/clearkey/licenseManager.do, which a GET with siteId and cid asks too, and /license), GET ${CERTIFICATE_PATHS.join(', ')} (?siteId=), GET /events and GET /health.`,
      );
    }
    if (call.method !== method && !(method === 'GET' && call.method === 'HEAD')) {
      throw new EmulatorError(
        'METHOD_NOT_ALLOWED',
        `${pathname} takes ${method}, not ${call.method}.`,
        { allow: method },
      );
    }
    if (method === 'POST' || clearKeyGet) {
      const slow = faults.strike('arrival', flow, SLOW);
      if (slow?.fault === 'slow') await new Promise((done) => setTimeout(done, slow.ms));
      return arrivalFailure(flow) ?? license(call, flow);
    }
    if (certificate) return certificateAnswer(call, config);
    if (pathname === '/health') return health();
    return eventStream(corsHeaders);
  }

  // The core: a call in, a plain answer out. The node server runs it as it is; the web handler
  // below wraps it.
  const core = async (call: Call): Promise<Answer> => {
    const origin = call.header('origin');
    if (call.method === 'OPTIONS') {
      const headers = cors.preflightHeaders(origin);
      if (headers === 'denied') return fail(originDenied(origin), {});
      return { status: 204, headers, body: null };
    }
    const corsHeaders = cors.headersFor(origin);
    if (corsHeaders === 'denied') return fail(originDenied(origin), {});
    const requestId = randomHex(6);
    const flow = createFlowRecorder(events, requestId);
    const isLicense = isLicensePath(call.path);
    let answer: Answer;
    try {
      answer = await route(call, flow, corsHeaders);
    } catch (error) {
      const known =
        error instanceof EmulatorError
          ? error
          : new EmulatorError(
              'INTERNAL_ERROR',
              'The emulator failed unexpectedly while handling this request; its log has the details.',
            );
      if (!(error instanceof EmulatorError)) options.onInternalError?.(error);
      if (isLicense && known.code !== 'METHOD_NOT_ALLOWED') {
        try {
          flow.emit(deniedEvent(known, config.dialect, codeOf));
        } catch (emitError) {
          // The refusal must still reach the client, even when reporting it fails.
          options.onInternalError?.(emitError);
        }
      }
      answer = fail(known, corsHeaders);
    }
    Object.assign(answer.headers, corsHeaders);
    answer.headers['x-drm-request-id'] = requestId;
    return answer;
  };
  const handler = async (request: Request): Promise<Response> =>
    responseOf(await core(callOfRequest(request)));
  function fail(error: EmulatorError, headers: Record<string, string>): Answer {
    return failureAnswer(error, config.dialect, codeOf, headers);
  }

  /**
   * Faults that strike before the service decides anything (after a slow fault, if any, has made
   * the request wait): an HTTP 5xx is what a proxy or load balancer in front of the service
   * answers, not a JSON refusal. Synchronous: every license asks, and most never meet a fault.
   */
  function arrivalFailure(flow: FlowRecorder): Answer | undefined {
    const failure = faults.strike('arrival', flow, HTTP_ERROR);
    if (failure?.fault !== 'http-error') return undefined;
    return {
      status: failure.status,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      body: `${failure.status} (injected fault http-error of the emulator)\n`,
    };
  }

  return withCore(Object.assign(handler, { events, config, faults }), core);
}

const GET_PATHS: Partial<Record<string, 'GET'>> = { '/events': 'GET', '/health': 'GET' };
// Asked of every license: constants rather than an array literal (a new array) per call.
const SLOW = ['slow'] as const;
const HTTP_ERROR = ['http-error'] as const;

function originDenied(origin: string | null): EmulatorError {
  return new EmulatorError(
    'ORIGIN_NOT_ALLOWED',
    `Origin ${origin ?? '(none)'} is not in allowedOrigins of the emulator config: add it there (or "*" to allow any; the default allows no browser origin).`,
    { origin },
  );
}
