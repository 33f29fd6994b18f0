import { randomBytes } from 'node:crypto';
import type { Authorization } from './authorization.ts';
import { buildClearKeyLicense } from './clearkey-license.ts';
import { parseConfig, type EmulatorConfig, type EmulatorConfigInput } from './config.ts';
import { EmulatorError } from './errors.ts';
import { createFlowRecorder, FlowEvents, type FlowRecorder } from './events.ts';
import { createGatewayAuthorizer, type GatewayOptions } from './gateway-mode.ts';
import { headerKind } from './header-kind.ts';
import { createCorsPolicy } from './http/cors.ts';
import { readTextLimited } from './http/read-body.ts';
import { eventStreamResponse } from './http/sse.ts';
import { selectKeys } from './key-selection.ts';
import {
  MAX_LICENSE_REQUEST_BYTES,
  parseLicenseRequest,
  type ClearKeyRequest,
} from './license-request.ts';
import { checkPolicyWindow, effectivePolicy } from './policy.ts';
import { createTokenAuthorizer } from './token-mode.ts';

export interface EmulatorHandlerOptions extends GatewayOptions {
  /** Where flow events go; default a new emitter, available as `handler.events`. */
  events?: FlowEvents;
  /** The wall clock in ms since the epoch, for token validity and policy windows; default Date.now. */
  now?: () => number;
  /** Called with errors that are bugs of the emulator (answered as INTERNAL_ERROR). */
  onInternalError?: (error: unknown) => void;
}

export interface EmulatorHandler {
  (request: Request): Promise<Response>;
  readonly events: FlowEvents;
  readonly config: EmulatorConfig;
}

/**
 * The license service stand-in as a web-standard handler: `POST /license`, `GET /events`,
 * `GET /health`, and CORS preflights. The config is validated here, once; keys are derived once.
 */
export function createEmulatorHandler(
  input: EmulatorConfigInput | EmulatorConfig,
  options: EmulatorHandlerOptions = {},
): EmulatorHandler {
  const config = parseConfig(input);
  const events = options.events ?? new FlowEvents();
  const now = options.now ?? Date.now;
  const tokens = createTokenAuthorizer(config);
  const gateways = createGatewayAuthorizer(config, options);
  const cors = createCorsPolicy(config.allowedOrigins, config.customDataHeader);
  const header = config.customDataHeader;
  const startedAt = now();

  async function license(request: Request, flow: FlowRecorder): Promise<Response> {
    const value = request.headers.get(header);
    const body = await readTextLimited(request.body, MAX_LICENSE_REQUEST_BYTES);
    if (body === undefined) {
      throw new EmulatorError(
        'PAYLOAD_TOO_LARGE',
        `The license request body is larger than ${MAX_LICENSE_REQUEST_BYTES} bytes; a ClearKey request is a few hundred.`,
      );
    }
    const parsed = tryParse(body);
    const origin = request.headers.get('origin');
    flow.emit({
      type: 'license-request',
      kids: parsed.request?.kids ?? [],
      ...(origin === null ? {} : { origin }),
    });
    if (value === null || value.trim() === '') {
      throw new EmulatorError(
        'MISSING_CUSTOM_DATA',
        `The license request has no ${header} header: send the license token (token mode) or the site's custom data (gateway mode) in it.`,
        { header },
      );
    }
    if (parsed.request === undefined) throw parsed.error;
    const requested = parsed.request.kids;

    const auth = await authorize(value, flow);
    const policy = effectivePolicy(auth.grant);
    checkPolicyWindow(policy, now());
    const keys = selectKeys(requested, auth.cid, auth.grant.externalKey, config.keys);
    const clearKey = buildClearKeyLicense(keys, policy.persistent);
    flow.emit({
      type: 'license-issued',
      mode: auth.mode,
      siteId: auth.siteId,
      userId: auth.userId,
      cid: auth.cid,
      kids: keys.map((k) => k.kid),
      licenseType: clearKey.type,
      policy,
    });
    return Response.json(clearKey, {
      headers: { 'x-drm-license-policy': JSON.stringify(policy), 'cache-control': 'no-store' },
    });
  }

  async function authorize(value: string, flow: FlowRecorder): Promise<Authorization> {
    if (headerKind(value, header) === 'gateway') return gateways.authorize(value, flow);
    try {
      const auth = tokens.authorize(value, now());
      flow.emit({
        type: 'token-checked',
        ok: true,
        siteId: auth.siteId,
        userId: auth.userId,
        cid: auth.cid,
        drmType: auth.drmType,
        ...(auth.warnings.length > 0 ? { warnings: auth.warnings } : {}),
      });
      return auth;
    } catch (error) {
      const errorCode = error instanceof EmulatorError ? error.code : 'INTERNAL_ERROR';
      flow.emit({ type: 'token-checked', ok: false, errorCode });
      throw error;
    }
  }

  function health(): Response {
    return Response.json({
      status: 'ok',
      uptimeSeconds: Math.round((now() - startedAt) / 1000),
      sites: config.sites.map((s) => ({
        siteId: s.siteId,
        mode: s.gatewayUrl === undefined ? 'token' : `token+gateway(${s.gatewayFormat})`,
      })),
      cids: Object.keys(config.keys),
      customDataHeader: header,
    });
  }

  async function route(
    request: Request,
    flow: FlowRecorder,
    corsHeaders: Record<string, string>,
  ): Promise<Response> {
    const { pathname } = new URL(request.url);
    const routes: Record<string, string> = {
      '/license': 'POST',
      '/events': 'GET',
      '/health': 'GET',
    };
    const method = routes[pathname];
    if (method === undefined) {
      throw new EmulatorError(
        'NOT_FOUND',
        `No such path ${pathname}: the emulator serves POST /license, GET /events and GET /health.`,
      );
    }
    if (request.method !== method && !(method === 'GET' && request.method === 'HEAD')) {
      throw new EmulatorError(
        'METHOD_NOT_ALLOWED',
        `${pathname} takes ${method}, not ${request.method}.`,
        { allow: method },
      );
    }
    if (pathname === '/license') return license(request, flow);
    if (pathname === '/health') return health();
    return eventStreamResponse(events, corsHeaders);
  }

  const handler = async (request: Request): Promise<Response> => {
    const origin = request.headers.get('origin');
    if (request.method === 'OPTIONS') {
      const headers = cors.preflightHeaders(origin);
      if (headers === 'denied') return failure(originDenied(origin), {});
      return new Response(null, { status: 204, headers });
    }
    const corsHeaders = cors.headersFor(origin);
    if (corsHeaders === 'denied') return failure(originDenied(origin), {});
    const requestId = randomBytes(6).toString('hex');
    const flow = createFlowRecorder(events, requestId);
    const isLicense = new URL(request.url).pathname === '/license';
    let response: Response;
    try {
      response = await route(request, flow, corsHeaders);
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
          flow.emit({
            type: 'license-denied',
            status: known.status,
            errorCode: known.code,
            message: known.message,
          });
        } catch (emitError) {
          // The refusal must still reach the client, even when reporting it fails.
          options.onInternalError?.(emitError);
        }
      }
      response = failure(known, corsHeaders);
    }
    for (const [name, value] of Object.entries(corsHeaders)) response.headers.set(name, value);
    response.headers.set('x-drm-request-id', requestId);
    return response;
  };
  return Object.assign(handler, { events, config });
}

function tryParse(
  body: string,
): { request: ClearKeyRequest; error?: undefined } | { request?: undefined; error: unknown } {
  try {
    return { request: parseLicenseRequest(body) };
  } catch (error) {
    return { error };
  }
}

function originDenied(origin: string | null): EmulatorError {
  return new EmulatorError(
    'ORIGIN_NOT_ALLOWED',
    `Origin ${origin ?? '(none)'} is not in allowedOrigins of the emulator config: add it there (or "*" to allow any; the default allows no browser origin).`,
    { origin },
  );
}

function failure(error: EmulatorError, headers: Record<string, string>): Response {
  const extra: Record<string, string> = {
    ...headers,
    'x-drm-error-code': error.code,
    'cache-control': 'no-store',
  };
  if (error.code === 'METHOD_NOT_ALLOWED') extra['allow'] = String(error.detail?.['allow']);
  return Response.json(error.toBody(), { status: error.status, headers: extra });
}
