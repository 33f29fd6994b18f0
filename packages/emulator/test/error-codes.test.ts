import { hash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  createCustomData,
  createLicenseToken,
  createTokenIssuer,
  encrypt,
} from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  FlowEvents,
  REFUSAL_REASONS,
  startEmulator,
  type Dialect,
  type EmulatorErrorCode,
  type FlowEvent,
  type RunningEmulator,
} from '../src/index.ts';
import {
  allowJson,
  allowXml,
  b64json,
  CID,
  clearKeyRequest,
  handMadeToken,
  handMadeTokenV2,
  inSeconds,
  JSON_SITE,
  KEY,
  KID,
  LICENSE_PATH,
  OTHER_KID,
  postLicense,
  refusalOf,
  startTestGateway,
  TOKEN_SITE,
  XML_SITE,
  type LicenseResult,
  type TestGateway,
} from './helpers.ts';

// Every code over HTTP, against emulators started as the CLI starts them (startEmulator with a
// config), once per dialect.

const DEAD_SITE = { ...JSON_SITE, siteId: 'DEADSITE' };
const ALLOWED_ORIGIN = 'http://player.test';
const OTHER_CID = 'movie-2';
const UNKNOWN_KID = 'ffffffffffffffffffffffffffffffff';
const SECRETS = [
  TOKEN_SITE.siteKey,
  TOKEN_SITE.accessKey,
  JSON_SITE.siteKey,
  XML_SITE.siteKey,
  KEY,
];

interface Stack {
  emulator: RunningEmulator;
  impatient: RunningEmulator;
  broken: RunningEmulator;
  events: FlowEvent[];
}

let jsonGateway: TestGateway;
let xmlGateway: TestGateway;
let deadUrl: string;
const stacks: Partial<Record<Dialect, Stack>> = {};
const internalErrors: unknown[] = [];
const issuer = createTokenIssuer(TOKEN_SITE);

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startStack(dialect: Dialect): Promise<Stack> {
  const emulator = await startEmulator({
    dialect,
    sites: [
      TOKEN_SITE,
      { ...JSON_SITE, gatewayUrl: jsonGateway.url },
      { ...XML_SITE, gatewayUrl: xmlGateway.url, gatewayFormat: 'xml' },
      { ...DEAD_SITE, gatewayUrl: deadUrl },
    ],
    keys: { [CID]: { kid: KID, key: KEY }, [OTHER_CID]: { kid: OTHER_KID, key: KEY } },
    allowedOrigins: [ALLOWED_ORIGIN],
  });
  const events: FlowEvent[] = [];
  emulator.events.on((e) => events.push(e));
  // A short timeout only where the gateway hangs on purpose, so that load cannot fail other cases.
  const impatient = await startEmulator({
    dialect,
    sites: [{ ...JSON_SITE, gatewayUrl: jsonGateway.url }],
    gatewayTimeoutMs: 300,
  });
  // An event sink that throws stands in for a bug inside the emulator.
  class ThrowingEvents extends FlowEvents {
    override emit(): void {
      throw new Error(`internal detail ${TOKEN_SITE.siteKey}`);
    }
  }
  const broken = await startEmulator(
    { dialect, sites: [TOKEN_SITE] },
    { events: new ThrowingEvents(), onInternalError: (e) => internalErrors.push(e) },
  );
  impatient.events.on((e) => events.push(e));
  return { emulator, impatient, broken, events };
}

beforeAll(async () => {
  jsonGateway = await startTestGateway(JSON_SITE.siteKey, 'json', (r) => allowJson(r));
  xmlGateway = await startTestGateway(XML_SITE.siteKey, 'xml', (r) => allowXml(r));
  deadUrl = `http://127.0.0.1:${await closedPort()}/gateway`;
  stacks.service = await startStack('service');
  stacks.explain = await startStack('explain');
});
afterAll(async () => {
  for (const stack of Object.values(stacks)) {
    await stack.emulator.close();
    await stack.impatient.close();
    await stack.broken.close();
  }
  await jsonGateway.close();
  await xmlGateway.close();
});

const custom = (site: { siteId: string; siteKey: string }) =>
  createCustomData({
    siteId: site.siteId,
    siteKey: site.siteKey,
    drmType: 'Widevine',
    userId: 'u',
    cid: CID,
  });

async function request(url: string, path: string, init: RequestInit = {}): Promise<LicenseResult> {
  const response = await fetch(`${url}${path}`, init);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as Record<string, unknown>,
    text,
  };
}

/** GET /health under another Host header than the URL's (fetch always sends the URL's). */
function withHost(url: string, host: string): Promise<LicenseResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/health`, { headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') headers.set(name, value);
        }
        resolve({
          status: res.statusCode ?? 0,
          headers,
          body: JSON.parse(text) as Record<string, unknown>,
          text,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let streamUser = 0;

// Request bodies of the other DRMs, in the shapes their CDMs make (contents made up).
const WIDEVINE_CHALLENGE = '\u0008\u0001\u0012\u0004abcd';
const PLAYREADY_CHALLENGE =
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AcquireLicense xmlns="http://schemas.microsoft.com/DRM/2007/03/protocols"><challenge><Challenge>AAAA</Challenge></challenge></AcquireLicense></soap:Body></soap:Envelope>';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const fairPlayToken = () => issuer.issue({ cid: CID, drmType: 'FairPlay' });

/** An allowing XML gateway answer with `inner` after ERROR and ERRMSG, echoing the nonce. */
function xmlAnswer(inner: string, says: RegExp) {
  return {
    run: (s: Stack) => {
      xmlGateway.behave = (r) => ({
        raw: encrypt(
          `<RES><ERROR>0000</ERROR><ERRMSG>ok</ERRMSG>${inner}<NONCE>${r.nonce}</NONCE></RES>`,
          XML_SITE.siteKey,
        ),
      });
      return postLicense(s.emulator.url, custom(XML_SITE));
    },
    says,
  };
}

/** One request per code that makes the emulator answer it, what the explanation must say, and the field. */
const scenarios: Record<
  EmulatorErrorCode,
  { run: (s: Stack) => Promise<LicenseResult>; says: RegExp; field?: string }
> = {
  MISSING_CUSTOM_DATA: {
    run: (s) => postLicense(s.emulator.url, undefined),
    says: /no x-drm-custom-data header and no x-drm-custom-data query parameter/,
    field: 'x-drm-custom-data',
  },
  MALFORMED_TOKEN: {
    run: (s) => postLicense(s.emulator.url, 'Bearer abc!'),
    says: /not base64 of a JSON object/,
  },
  INVALID_TOKEN_FIELD: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        b64json({ site_id: TOKEN_SITE.siteId, user_id: 'u', token: 'AAAA' }),
      ),
    says: /cid: is required/,
    field: 'cid',
  },
  INVALID_DRM_TYPE: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        b64json({
          drm_type: 'Marlin',
          site_id: TOKEN_SITE.siteId,
          user_id: 'u',
          cid: CID,
          token: 'AAAA',
          timestamp: inSeconds(0),
          hash: 'AAAA',
        }),
      ),
    says: /drm_type "Marlin" is not one of "NCG", "Widevine", "PlayReady", "FairPlay", "Wiseplay" \(any case\)/,
    field: 'drm_type',
  },
  INVALID_CUSTOM_DATA: {
    run: (s) => postLicense(s.emulator.url, b64json({ drm_type: 'Widevine', data: 'AAAA' })),
    says: /custom_data\.site_id: must be a string/,
    field: 'custom_data.site_id',
  },
  DECRYPT_FAILED: {
    run: (s) =>
      postLicense(s.emulator.url, custom({ siteId: JSON_SITE.siteId, siteKey: 'Z'.repeat(32) })),
    says: /does not open with its site key/,
    field: 'custom_data.data',
  },
  TOKEN_DECRYPT_FAILED: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        createLicenseToken({ ...TOKEN_SITE, siteKey: 'Z'.repeat(32), cid: CID }),
      ),
    says: /could not be decrypted/,
  },
  BAD_LICENSE_REQUEST: {
    run: (s) => postLicense(s.emulator.url, issuer.issue({ cid: CID }), '{"kids":[]}'),
    says: /kids: must be a non-empty array/,
  },
  WIDEVINE_BAD_CHALLENGE: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        issuer.issue({ cid: CID, drmType: 'Widevine' }),
        PLAYREADY_CHALLENGE,
      ),
    says: /Widevine token but the body is a PlayReady challenge/,
  },
  PLAYREADY_BAD_CHALLENGE: {
    run: (s) => postLicense(s.emulator.url, issuer.issue({ cid: CID }), WIDEVINE_CHALLENGE),
    says: /PlayReady token but the body is a Widevine challenge/,
  },
  PLAYREADY_NO_CUSTOM_DATA: {
    run: (s) => postLicense(s.emulator.url, undefined, PLAYREADY_CHALLENGE),
    says: /carries no token: none in its <CustomData>/,
    field: 'x-drm-custom-data',
  },
  FAIRPLAY_EMPTY_SPC: {
    run: (s) => postLicense(s.emulator.url, fairPlayToken(), 'spc=', FORM),
    says: /carries no SPC/,
    field: 'spc',
  },
  FAIRPLAY_BAD_SPC: {
    run: (s) => postLicense(s.emulator.url, fairPlayToken(), 'spc=not*base64', FORM),
    says: /not standard base64 of the SPC/,
    field: 'spc',
  },
  MISSING_PARAMETER: {
    run: (s) => postLicense(s.emulator.url, fairPlayToken(), 'ckc=AAAA', FORM),
    says: /has no spc parameter/,
    field: 'spc',
  },
  UNSUPPORTED_MODE: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        issuer.issue({ cid: CID }),
        clearKeyRequest(KID),
        {},
        `${LICENSE_PATH}?mode=getserverinfo`,
      ),
    says: /not mode="getserverinfo"/,
    field: 'mode',
  },
  UNKNOWN_SITE: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        createLicenseToken({ ...TOKEN_SITE, siteId: 'ELSEWHERE', cid: CID }),
      ),
    says: /site "ELSEWHERE", which is not in the emulator config/,
    field: 'site_id',
  },
  HASH_MISMATCH: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        createLicenseToken({ ...TOKEN_SITE, hashEncoding: 'raw-digest', cid: CID }),
      ),
    says: /made with hashEncoding 'raw-digest', but 'hex-text' was expected/,
    field: 'hash',
  },
  TOKEN_EXPIRED: {
    run: (s) => postLicense(s.emulator.url, issuer.issue({ cid: CID, timestamp: inSeconds(-900) })),
    says: /expired 3\d\d s ago: it is valid for 600 s/,
    field: 'timestamp',
  },
  TOKEN_NOT_YET_VALID: {
    run: (s) => postLicense(s.emulator.url, issuer.issue({ cid: CID, timestamp: inSeconds(300) })),
    says: /in the future .*allowed clock skew 5 s/,
    field: 'timestamp',
  },
  INVALID_POLICY: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        handMadeToken({ playback_policy: { limit: true, duration: -5 } }),
      ),
    says: /policy\.playback_policy\.duration: must not be negative/,
    field: 'policy.playback_policy.duration',
  },
  GATEWAY_NOT_CONFIGURED: {
    run: (s) => postLicense(s.emulator.url, custom(TOKEN_SITE)),
    says: /has no gatewayUrl/,
  },
  GATEWAY_UNREACHABLE: {
    run: (s) => postLicense(s.emulator.url, custom(DEAD_SITE)),
    says: /could not be reached/,
  },
  GATEWAY_TIMEOUT: {
    run: (s) => {
      jsonGateway.behave = () => 'hang';
      return postLicense(s.impatient.url, custom(JSON_SITE));
    },
    says: /did not answer within 300 ms/,
  },
  GATEWAY_BAD_STATUS: {
    run: (s) => {
      jsonGateway.behave = () => ({ status: 500, raw: 'oops' });
      return postLicense(s.emulator.url, custom(JSON_SITE));
    },
    says: /answered HTTP 500/,
  },
  GATEWAY_DECRYPT_FAILED: {
    run: (s) => {
      jsonGateway.behave = (r) => ({ raw: encrypt(JSON.stringify(r), 'W'.repeat(32)) });
      return postLicense(s.emulator.url, custom(JSON_SITE));
    },
    says: /does not decrypt with the site key/,
  },
  GATEWAY_BAD_RESPONSE: {
    run: (s) => {
      jsonGateway.behave = (r) => ({
        raw: encrypt(JSON.stringify({ error_code: '0000', nonce: r.nonce }), JSON_SITE.siteKey),
      });
      return postLicense(s.emulator.url, custom(JSON_SITE));
    },
    says: /answer\.error_message: is required/,
  },
  GATEWAY_BAD_XML: {
    run: (s) => {
      xmlGateway.behave = () => ({
        raw: encrypt('<RES><ERROR>0000</ERROR></RES>', XML_SITE.siteKey),
      });
      return postLicense(s.emulator.url, custom(XML_SITE));
    },
    says: /answered something unusable/,
  },
  GATEWAY_PERIOD_INVALID: xmlAnswer('<LIMIT>Y</LIMIT>', /RES\.PD_END: is required when LIMIT is Y/),
  GATEWAY_PERIOD_FORMAT: xmlAnswer(
    '<LIMIT>Y</LIMIT><PD_END>2026-03-01 12:00</PD_END>',
    /RES\.PD_END: must have the format yyyy-mm-ddThh:mm:ssZ/,
  ),
  GATEWAY_PERIOD_ORDER: xmlAnswer(
    '<LIMIT>Y</LIMIT><PD_START>2099-01-02T00:00:00Z</PD_START><PD_END>2099-01-01T00:00:00Z</PD_END>',
    /RES\.PD_START: must be before PD_END/,
  ),
  GATEWAY_HDCP_INVALID: xmlAnswer('<PC HDCP="2"/>', /RES\.PC\.@_HDCP: must be from 0 to 1/),
  GATEWAY_CGMS_INVALID: xmlAnswer('<PC CGMS-A="4"/>', /RES\.PC\.@_CGMS-A: must be from -1 to 3/),
  GATEWAY_APS_INVALID: xmlAnswer('<PC APS="-1"/>', /RES\.PC\.@_APS: must be from 0 to 3/),
  NONCE_MISMATCH: {
    run: (s) => {
      jsonGateway.behave = (r) => allowJson(r, { nonce: 'replayed-nonce' });
      return postLicense(s.emulator.url, custom(JSON_SITE));
    },
    says: /another nonce/,
  },
  GATEWAY_DENIED: {
    run: (s) => {
      jsonGateway.behave = (r) => ({
        format: 'json',
        error_code: '1001',
        error_message: 'no rights',
        nonce: r.nonce,
      });
      return postLicense(s.emulator.url, custom(JSON_SITE));
    },
    says: /error code 1001: no rights/,
  },
  LICENSE_EXPIRED: {
    run: (s) =>
      postLicense(
        s.emulator.url,
        issuer.issue({
          cid: CID,
          policy: { playback_policy: { limit: true, expire_date: inSeconds(-10) } },
        }),
      ),
    says: /license period ended/,
    field: 'playback_policy.expire_date',
  },
  LICENSE_NOT_YET_VALID: {
    run: (s) => {
      xmlGateway.behave = (r) =>
        allowXml(r, { LIMIT: 'Y', PD_START: inSeconds(600), PD_END: inSeconds(1200) });
      return postLicense(s.emulator.url, custom(XML_SITE));
    },
    says: /starts in (599|600) s/,
    field: 'PD_START',
  },
  NO_KEY_FOR_CID: {
    run: (s) => postLicense(s.emulator.url, issuer.issue({ cid: 'unpackaged' })),
    says: /No key for cid "unpackaged"/,
    field: 'cid',
  },
  CID_MISMATCH: {
    run: (s) => postLicense(s.emulator.url, issuer.issue({ cid: CID }), clearKeyRequest(OTHER_KID)),
    says: new RegExp(
      `key ID ${OTHER_KID} of cid "${OTHER_CID}", but the token .* is for cid "${CID}"`,
    ),
    field: 'cid',
  },
  KID_NOT_LICENSED: {
    run: (s) =>
      postLicense(s.emulator.url, issuer.issue({ cid: CID }), clearKeyRequest(KID, UNKNOWN_KID)),
    says: new RegExp(
      `key ID ${UNKNOWN_KID}, which the configured keys of cid "${CID}" do not include`,
    ),
  },
  STREAM_LIMIT_REACHED: {
    run: async (s) => {
      const userId = `viewer-${++streamUser}`;
      const token = () =>
        issuer.issue({
          cid: CID,
          userId,
          policy: { policy_version: 2, playback_policy: { max_stream_per_user: 1 } },
        });
      const first = await postLicense(s.emulator.url, token(), undefined, {
        'x-drm-stream-id': 'tab-1',
      });
      expect(first.body['keys']).toBeDefined();
      return postLicense(s.emulator.url, token(), undefined, { 'x-drm-stream-id': 'tab-2' });
    },
    says: /already has 1 stream that renews in time, and the policy allows 1/,
    field: 'playback_policy.max_stream_per_user',
  },
  ORIGIN_NOT_ALLOWED: {
    run: (s) =>
      postLicense(s.emulator.url, issuer.issue({ cid: CID }), undefined, {
        origin: 'http://other.test',
      }),
    says: /Origin http:\/\/other\.test is not in allowedOrigins/,
  },
  HOST_NOT_ALLOWED: {
    run: (s) => withHost(s.emulator.url, 'rebind.attacker.example'),
    says: /Host "rebind\.attacker\.example" is not a name the emulator answers to/,
  },
  NOT_FOUND: {
    run: (s) => request(s.emulator.url, '/licence'),
    says: /No such path \/licence/,
  },
  METHOD_NOT_ALLOWED: {
    run: (s) => request(s.emulator.url, '/ri/licenseManager.do'),
    says: /\/ri\/licenseManager\.do takes POST, not GET/,
  },
  TOO_MANY_EVENT_STREAMS: {
    // eventStreams.max 0: GET /events is full before anyone subscribes.
    run: async () => {
      const full = await startEmulator({ sites: [TOKEN_SITE] }, { eventStreams: { max: 0 } });
      try {
        return await request(full.url, '/events');
      } finally {
        await full.close();
      }
    },
    says: /already has 0 subscribers/,
  },
  PAYLOAD_TOO_LARGE: {
    run: (s) =>
      postLicense(s.emulator.url, issuer.issue({ cid: CID }), `{"kids":["${'A'.repeat(70_000)}"]}`),
    says: /larger than 65536 bytes/,
  },
  INTERNAL_ERROR: {
    run: (s) => postLicense(s.broken.url, createTokenIssuer(TOKEN_SITE).issue({ cid: CID })),
    says: /failed unexpectedly/,
  },
};

const ALL = Object.keys(ERROR_CODES) as EmulatorErrorCode[];
const TRANSPORT = ALL.filter((code) => !(REFUSAL_REASONS as string[]).includes(code));

function expectNoSecret(res: LicenseResult): void {
  for (const secret of SECRETS) expect(res.text).not.toContain(secret);
  expect(res.text).not.toMatch(/\n\s+at /);
}

describe("the service dialect (default): every refusal is HTTP 200 with the service's code", () => {
  it.each(REFUSAL_REASONS)('%s', async (reason) => {
    const stack = stacks.service as Stack;
    const scenario = scenarios[reason];
    const res = await scenario.run(stack);
    const refusal = refusalOf(res);
    const entry = ERROR_CODES[reason];
    expect(refusal.errorCode).toBe(entry.serviceCode);
    expect(refusal.errorCode).toMatch(/^\d+$/);
    if (reason !== 'GATEWAY_DENIED') expect(refusal.message).toBe(entry.message);
    expect(refusal.reason).toBe(reason);
    expect(refusal.detail).toMatch(scenario.says);
    expect(refusal.fix).toBe(entry.fix);
    expect(refusal.field).toBe(scenario.field);
    expect(Object.keys(res.body)).toEqual(
      ['errorCode', 'message', 'reason', 'field', 'fix', 'detail'].filter((k) => k in res.body),
    );
    expectNoSecret(res);
    // The events keep the whole explanation beside the service's code.
    const id = res.headers.get('x-drm-request-id');
    const denied = stack.events.find((e) => e.requestId === id && e.type === 'license-denied');
    expect(denied).toMatchObject({
      status: 200,
      errorCode: entry.serviceCode,
      reason,
      message: refusal.message,
      detail: refusal.detail,
    });
  });

  it.each(TRANSPORT)('%s keeps its HTTP status (not a license decision)', async (code) => {
    const res = await scenarios[code].run(stacks.service as Stack);
    expect(res.status).toBe(ERROR_CODES[code].status);
    expect(res.headers.get('x-drm-error-code')).toBe(code);
    expect(res.body['error_code']).toBe(code);
    expect(res.body['message']).toMatch(scenarios[code].says);
    expect(res.body['errorCode']).toBeUndefined();
    expectNoSecret(res);
  });

  it("nests the site's own code and text in 8002's message as JSON text", async () => {
    const res = await scenarios.GATEWAY_DENIED.run(stacks.service as Stack);
    const refusal = refusalOf(res);
    expect(refusal.errorCode).toBe('8002');
    expect(JSON.parse(refusal.message)).toEqual({ ERROR: '1001', MESSAGE: 'no rights' });
  });

  it('says which hash reading the token was made with, and which one is expected', async () => {
    const stack = stacks.service as Stack;
    const res = await scenarios.HASH_MISMATCH.run(stack);
    const id = res.headers.get('x-drm-request-id');
    const denied = stack.events.find((e) => e.requestId === id && e.type === 'license-denied');
    expect(denied).toMatchObject({
      facts: { expectedReading: 'hex-text', matchedReading: 'raw-digest', version: 1 },
    });
    const other = refusalOf(
      await postLicense(
        stack.emulator.url,
        createLicenseToken({ ...TOKEN_SITE, accessKey: 'wrong', cid: CID }),
      ),
    );
    expect(other.errorCode).toBe('7019');
    expect(other.detail).toMatch(/matches neither hash reading/);
  });

  it('names the v2 hash reading as the raw digest when a v2 token was hashed as hex text', async () => {
    const stack = stacks.service as Stack;
    const fields = JSON.parse(
      Buffer.from(handMadeTokenV2({ policy_version: 2 }), 'base64').toString(),
    ) as Record<string, string>;
    const hashed = ['drm_type', 'site_id', 'user_id', 'cid', 'policy', 'timestamp'];
    const s = TOKEN_SITE.accessKey + hashed.map((name) => fields[name]).join('');
    const hexText = Buffer.from(hash('sha256', s, 'hex').toUpperCase()).toString('base64');
    const res = await postLicense(stack.emulator.url, b64json({ ...fields, hash: hexText }));
    expect(refusalOf(res)).toMatchObject({ errorCode: '7019', field: 'hash' });
    const denied = stack.events.find(
      (e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === 'license-denied',
    );
    expect(denied).toMatchObject({
      facts: { version: 2, expectedReading: 'raw-digest', matchedReading: 'hex-text' },
    });
  });
});

describe('the explain dialect: the 4xx answers with the named codes', () => {
  it.each(ALL)('%s', async (code) => {
    const scenario = scenarios[code];
    const res = await scenario.run(stacks.explain as Stack);
    expect(res.body['error_code']).toBe(code);
    expect(res.status).toBe(ERROR_CODES[code].status);
    expect(res.headers.get('x-drm-error-code')).toBe(code);
    expect(res.body['message']).toMatch(scenario.says);
    expect(
      Object.keys(res.body).every((k) => ['error_code', 'message', 'detail'].includes(k)),
    ).toBe(true);
    expectNoSecret(res);
  });

  it('puts the code the client got (the reason) beside the reason in the events', async () => {
    const stack = stacks.explain as Stack;
    const res = await scenarios.TOKEN_EXPIRED.run(stack);
    const id = res.headers.get('x-drm-request-id');
    expect(stack.events.filter((e) => e.requestId === id).slice(1)).toEqual([
      expect.objectContaining({ type: 'token-checked', errorCode: 'TOKEN_EXPIRED' }),
      expect.objectContaining({
        type: 'license-denied',
        status: 403,
        errorCode: 'TOKEN_EXPIRED',
        reason: 'TOKEN_EXPIRED',
      }),
    ]);
  });

  it("passes the site's code and message in detail when the gateway refuses", async () => {
    const res = await scenarios.GATEWAY_DENIED.run(stacks.explain as Stack);
    expect(res.body['detail']).toMatchObject({
      siteErrorCode: '1001',
      siteErrorMessage: 'no rights',
    });
  });
});

describe('both dialects', () => {
  it('hand the internal error to onInternalError and keep its text out of the answer', () => {
    expect(internalErrors.length).toBeGreaterThan(1);
    expect(String(internalErrors[0])).toContain('internal detail');
  });

  it('answer a browser origin on the list and expose the x-drm headers to it', async () => {
    for (const stack of Object.values(stacks)) {
      const res = await postLicense(stack.emulator.url, issuer.issue({ cid: CID }), undefined, {
        origin: ALLOWED_ORIGIN,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(res.headers.get('access-control-expose-headers')).toContain('x-drm-license-policy');
    }
  });
});

describe('errorCodes in the config', () => {
  it('replaces the service code of a reason, and only of that reason', async () => {
    const emulator = await startEmulator({
      sites: [TOKEN_SITE],
      keys: { [CID]: { kid: KID, key: KEY } },
      errorCodes: { TOKEN_NOT_YET_VALID: '6091', NO_KEY_FOR_CID: '7001' },
    });
    try {
      const early = await postLicense(
        emulator.url,
        issuer.issue({ cid: CID, timestamp: inSeconds(300) }),
      );
      expect(refusalOf(early)).toMatchObject({ errorCode: '6091', reason: 'TOKEN_NOT_YET_VALID' });
      const late = await postLicense(
        emulator.url,
        issuer.issue({ cid: CID, timestamp: inSeconds(-900) }),
      );
      expect(refusalOf(late).errorCode).toBe('7011');
    } finally {
      await emulator.close();
    }
  });
});
