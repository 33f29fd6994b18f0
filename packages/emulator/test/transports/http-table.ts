// One HTTP-level table for both doors of the emulator: its HTTP server (startEmulator) and its msw
// handlers (licenseServiceHandlers). Each row is requests and what must come back, faults included.
import { createCustomData, createTokenIssuer } from '@multidrm/site-kit';
import type { EmulatorConfigInput, FaultInput, FlowEvent } from '../../src/index.ts';
import { clearKeyRequest, CID, JSON_SITE, KEY, KID, LICENSE_PATH, TOKEN_SITE } from '../helpers.ts';

/** One request of a row: path (with query) and init; the license path and a token by default. */
export interface RowRequest {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What one answer must be. */
export interface Expected {
  status: number;
  /** The service's code of a refusal (HTTP 200 + errorCode). */
  errorCode?: string;
  reason?: string;
  /** A ClearKey license for KID. */
  licensed?: true;
  /** The answer's error_code of a transport failure. */
  transportError?: string;
  /** The body contains this text. */
  bodyContains?: string;
}

export interface Row {
  name: string;
  faults?: FaultInput[];
  requests: RowRequest[];
  expected: Expected[];
  /** The flow event types of the last request, in order. */
  flow?: FlowEvent['type'][];
}

const issuer = createTokenIssuer(TOKEN_SITE);
/** A fresh v2 token per request, made at call time (the table is read before the clock moves). */
const token = () => issuer.issue({ cid: CID, policy: { policy_version: 2 } });
const withToken = (extra: RowRequest = {}): RowRequest => ({
  ...extra,
  headers: { 'x-drm-custom-data': token(), ...extra.headers },
});
const customData = () =>
  createCustomData({
    siteId: JSON_SITE.siteId,
    siteKey: JSON_SITE.siteKey,
    drmType: 'Widevine',
    userId: 'user-7',
    cid: CID,
  });
const withCustomData = (): RowRequest => ({ headers: { 'x-drm-custom-data': customData() } });

/** The config both doors run, apart from the gateway's address. */
export function tableConfig(gatewayUrl: string): EmulatorConfigInput {
  return {
    sites: [TOKEN_SITE, { ...JSON_SITE, gatewayUrl, gatewayFormat: 'json' }],
    keys: { [CID]: { kid: KID, key: KEY } },
    allowedOrigins: ['*'],
  };
}

const LICENSED: Expected = { status: 200, licensed: true };
const TOKEN_FLOW: FlowEvent['type'][] = ['license-request', 'token-checked', 'license-issued'];

/** Rows are built on demand: tokens carry the time they are made. */
export function httpTable(): Row[] {
  return [
    {
      name: 'a valid v2 token in the header gets the ClearKey license',
      requests: [withToken()],
      expected: [LICENSED],
      flow: TOKEN_FLOW,
    },
    {
      name: 'the token in the query parameter of the same name gets the license',
      requests: [{ path: `${LICENSE_PATH}?x-drm-custom-data=${encodeURIComponent(token())}` }],
      expected: [LICENSED],
    },
    {
      name: 'gateway-mode custom data is authorized by the site gateway',
      requests: [withCustomData()],
      expected: [LICENSED],
      flow: ['license-request', 'callback-sent', 'callback-answered', 'license-issued'],
    },
    {
      name: 'no token is refused with 7010 in an HTTP 200 answer',
      requests: [{}],
      expected: [{ status: 200, errorCode: '7010', reason: 'MISSING_CUSTOM_DATA' }],
      flow: ['license-request', 'license-denied'],
    },
    {
      name: 'a really expired token is refused with 7011',
      requests: [
        {
          headers: {
            'x-drm-custom-data': issuer.issue({
              cid: CID,
              policy: { policy_version: 2 },
              timestamp: '2020-01-01T00:00:00Z',
            }),
          },
        },
      ],
      expected: [{ status: 200, errorCode: '7011', reason: 'TOKEN_EXPIRED' }],
    },
    {
      name: 'fault token-expired refuses a valid token with 7011',
      faults: [{ fault: 'token-expired' }],
      requests: [withToken()],
      expected: [
        { status: 200, errorCode: '7011', reason: 'TOKEN_EXPIRED', bodyContains: 'Injected' },
      ],
      flow: ['license-request', 'fault-injected', 'token-checked', 'license-denied'],
    },
    {
      name: 'fault token-expired with times 1 refuses the first request, then accepts',
      faults: [{ fault: 'token-expired', times: 1 }],
      requests: [withToken(), withToken(), withToken()],
      expected: [{ status: 200, errorCode: '7011' }, LICENSED, LICENSED],
      flow: TOKEN_FLOW,
    },
    {
      name: 'fault wrong-hash refuses with 7019',
      faults: [{ fault: 'wrong-hash' }],
      requests: [withToken()],
      expected: [{ status: 200, errorCode: '7019', reason: 'HASH_MISMATCH' }],
    },
    {
      name: 'fault unknown-site refuses tokens and custom data with 1003',
      faults: [{ fault: 'unknown-site', times: 2 }],
      requests: [withToken(), withCustomData(), withToken()],
      expected: [
        { status: 200, errorCode: '1003', reason: 'UNKNOWN_SITE' },
        { status: 200, errorCode: '1003', reason: 'UNKNOWN_SITE' },
        LICENSED,
      ],
    },
    {
      name: "fault gateway-refusal answers 8002 with the site's own code, without a callback",
      faults: [{ fault: 'gateway-refusal', siteCode: '4031', message: 'Not subscribed' }],
      requests: [withCustomData()],
      expected: [
        {
          status: 200,
          errorCode: '8002',
          reason: 'GATEWAY_DENIED',
          bodyContains: '{\\"ERROR\\":\\"4031\\",\\"MESSAGE\\":\\"Not subscribed\\"}',
        },
      ],
      flow: ['license-request', 'fault-injected', 'license-denied'],
    },
    {
      name: 'gateway faults leave token requests alone',
      faults: [{ fault: 'gateway-refusal' }],
      requests: [withToken()],
      expected: [LICENSED],
      flow: TOKEN_FLOW,
    },
    {
      name: 'fault gateway-timeout answers 8701',
      faults: [{ fault: 'gateway-timeout' }],
      requests: [withCustomData()],
      expected: [{ status: 200, errorCode: '8701', reason: 'GATEWAY_TIMEOUT' }],
    },
    {
      name: 'fault http-error answers the status as a proxy would, in plain text',
      faults: [{ fault: 'http-error', status: 502, times: 1 }],
      requests: [withToken(), withToken()],
      expected: [{ status: 502, bodyContains: 'injected fault http-error' }, LICENSED],
    },
    {
      name: 'fault slow delays the answer, which is then the real one',
      faults: [{ fault: 'slow', ms: 30 }],
      requests: [withToken()],
      expected: [LICENSED],
      flow: ['fault-injected', 'license-request', 'token-checked', 'license-issued'],
    },
    {
      name: 'fault stream-limit refuses a new stream with 6003',
      faults: [{ fault: 'stream-limit' }],
      requests: [withToken({ headers: { 'x-drm-stream-id': 'table-stream-limit' } })],
      expected: [{ status: 200, errorCode: '6003', reason: 'STREAM_LIMIT_REACHED' }],
    },
    {
      name: 'fault renewal-refused lets a stream start and refuses its renewal with 8711',
      faults: [{ fault: 'renewal-refused' }],
      requests: [
        withToken({ headers: { 'x-drm-stream-id': 'table-renewal' } }),
        withToken({ headers: { 'x-drm-stream-id': 'table-renewal' } }),
      ],
      expected: [LICENSED, { status: 200, errorCode: '8711', reason: 'LICENSE_EXPIRED' }],
    },
    {
      name: 'fault refuse answers any reason of the table with its code',
      faults: [{ fault: 'refuse', reason: 'KID_NOT_LICENSED' }],
      requests: [withToken()],
      expected: [{ status: 200, errorCode: '6004', reason: 'KID_NOT_LICENSED' }],
    },
    {
      name: 'a body that is not a ClearKey request is refused with 6005',
      requests: [withToken({ body: 'not json' })],
      expected: [{ status: 200, errorCode: '6005', reason: 'BAD_LICENSE_REQUEST' }],
    },
    {
      name: 'a path the service does not serve is a 404, a GET of the license path a 405',
      requests: [{ path: '/nope' }, { method: 'GET' }],
      expected: [
        { status: 404, transportError: 'NOT_FOUND' },
        { status: 405, transportError: 'METHOD_NOT_ALLOWED' },
      ],
    },
    {
      name: 'a CORS preflight is answered 204',
      requests: [
        {
          method: 'OPTIONS',
          headers: {
            origin: 'http://player.test',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'x-drm-custom-data',
          },
        },
      ],
      expected: [{ status: 204 }],
    },
  ];
}

/** The fetch init of a row request. */
export function requestInit(request: RowRequest): RequestInit {
  const method = request.method ?? 'POST';
  const hasBody = method === 'POST';
  return {
    method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...request.headers },
    ...(hasBody ? { body: request.body ?? clearKeyRequest(KID) } : {}),
  };
}
