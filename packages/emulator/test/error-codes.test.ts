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
  startEmulator,
  type EmulatorErrorCode,
  type RunningEmulator,
} from '../src/index.ts';
import {
  allowJson,
  allowXml,
  CID,
  clearKeyRequest,
  handMadeToken,
  inSeconds,
  JSON_SITE,
  KEY,
  KID,
  OTHER_KID,
  postLicense,
  startTestGateway,
  TOKEN_SITE,
  XML_SITE,
  type LicenseResult,
  type TestGateway,
} from './helpers.ts';

const DEAD_SITE = { ...JSON_SITE, siteId: 'DEADSITE' };
const ALLOWED_ORIGIN = 'http://player.test';
const SECRETS = [
  TOKEN_SITE.siteKey,
  TOKEN_SITE.accessKey,
  JSON_SITE.siteKey,
  XML_SITE.siteKey,
  KEY,
];

let emulator: RunningEmulator;
let broken: RunningEmulator;
let impatient: RunningEmulator;
let jsonGateway: TestGateway;
let xmlGateway: TestGateway;
const internalErrors: unknown[] = [];
const issuer = createTokenIssuer(TOKEN_SITE);

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  jsonGateway = await startTestGateway(JSON_SITE.siteKey, 'json', (r) => allowJson(r));
  xmlGateway = await startTestGateway(XML_SITE.siteKey, 'xml', (r) => allowXml(r));
  emulator = await startEmulator({
    sites: [
      TOKEN_SITE,
      { ...JSON_SITE, gatewayUrl: jsonGateway.url },
      { ...XML_SITE, gatewayUrl: xmlGateway.url, gatewayFormat: 'xml' },
      { ...DEAD_SITE, gatewayUrl: `http://127.0.0.1:${await closedPort()}/gateway` },
    ],
    keys: { [CID]: { kid: KID, key: KEY } },
    allowedOrigins: [ALLOWED_ORIGIN],
  });
  // A short timeout only where the gateway hangs on purpose, so that load cannot fail other cases.
  impatient = await startEmulator({
    sites: [{ ...JSON_SITE, gatewayUrl: jsonGateway.url }],
    gatewayTimeoutMs: 300,
  });
  // An event sink that throws stands in for a bug inside the emulator.
  class ThrowingEvents extends FlowEvents {
    override emit(): void {
      throw new Error(`internal detail ${TOKEN_SITE.siteKey}`);
    }
  }
  broken = await startEmulator(
    { sites: [TOKEN_SITE] },
    { events: new ThrowingEvents(), onInternalError: (e) => internalErrors.push(e) },
  );
});
afterAll(async () => {
  await emulator.close();
  await broken.close();
  await impatient.close();
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
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

async function request(path: string, init: RequestInit = {}): Promise<LicenseResult> {
  const response = await fetch(`${emulator.url}${path}`, init);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** One request per error code that makes the emulator answer it, and what the message must say. */
const scenarios: Record<EmulatorErrorCode, { run: () => Promise<LicenseResult>; says: RegExp }> = {
  MISSING_CUSTOM_DATA: {
    run: () => postLicense(emulator.url, undefined),
    says: /no x-drm-custom-data header/,
  },
  MALFORMED_TOKEN: {
    run: () => postLicense(emulator.url, 'Bearer abc!'),
    says: /not base64 of a JSON object/,
  },
  INVALID_TOKEN_FIELD: {
    run: () =>
      postLicense(
        emulator.url,
        b64json({ site_id: TOKEN_SITE.siteId, user_id: 'u', token: 'AAAA' }),
      ),
    says: /cid: is required/,
  },
  INVALID_CUSTOM_DATA: {
    run: () =>
      postLicense(
        emulator.url,
        b64json({ drm_type: 'Widevine', site_id: JSON_SITE.siteId, data: 'no%base64' }),
      ),
    says: /custom_data\.data: must be standard base64/,
  },
  BAD_LICENSE_REQUEST: {
    run: () => postLicense(emulator.url, issuer.issue({ cid: CID }), '{"kids":[]}'),
    says: /kids: must be a non-empty array/,
  },
  UNKNOWN_SITE: {
    run: () =>
      postLicense(
        emulator.url,
        createLicenseToken({ ...TOKEN_SITE, siteId: 'ELSEWHERE', cid: CID }),
      ),
    says: /site "ELSEWHERE", which is not in the emulator config/,
  },
  HASH_MISMATCH: {
    run: () =>
      postLicense(
        emulator.url,
        createLicenseToken({ ...TOKEN_SITE, hashEncoding: 'raw-digest', cid: CID }),
      ),
    says: /made with hashEncoding 'raw-digest', but 'hex-text' was expected/,
  },
  TOKEN_EXPIRED: {
    run: () => postLicense(emulator.url, issuer.issue({ cid: CID, timestamp: inSeconds(-300) })),
    says: /expired 2[34]\d s ago/,
  },
  TOKEN_NOT_YET_VALID: {
    run: () => postLicense(emulator.url, issuer.issue({ cid: CID, timestamp: inSeconds(300) })),
    says: /in the future/,
  },
  DECRYPT_FAILED: {
    run: () =>
      postLicense(emulator.url, custom({ siteId: JSON_SITE.siteId, siteKey: 'Z'.repeat(32) })),
    says: /not made with the site key configured/,
  },
  INVALID_POLICY: {
    run: () =>
      postLicense(emulator.url, handMadeToken({ playback_policy: { limit: true, duration: -5 } })),
    says: /policy\.playback_policy\.duration: must not be negative/,
  },
  GATEWAY_NOT_CONFIGURED: {
    run: () => postLicense(emulator.url, custom(TOKEN_SITE)),
    says: /has no gatewayUrl/,
  },
  GATEWAY_UNREACHABLE: {
    run: () => postLicense(emulator.url, custom(DEAD_SITE)),
    says: /could not be reached/,
  },
  GATEWAY_TIMEOUT: {
    run: () => {
      jsonGateway.behave = () => 'hang';
      return postLicense(impatient.url, custom(JSON_SITE));
    },
    says: /did not answer within 300 ms/,
  },
  GATEWAY_BAD_STATUS: {
    run: () => {
      jsonGateway.behave = () => ({ status: 500, raw: 'oops' });
      return postLicense(emulator.url, custom(JSON_SITE));
    },
    says: /answered HTTP 500/,
  },
  GATEWAY_DECRYPT_FAILED: {
    run: () => {
      jsonGateway.behave = (r) => ({ raw: encrypt(JSON.stringify(r), 'W'.repeat(32)) });
      return postLicense(emulator.url, custom(JSON_SITE));
    },
    says: /does not decrypt with the site key/,
  },
  GATEWAY_BAD_RESPONSE: {
    run: () => {
      jsonGateway.behave = (r) => ({
        raw: encrypt(JSON.stringify({ error_code: '0000', nonce: r.nonce }), JSON_SITE.siteKey),
      });
      return postLicense(emulator.url, custom(JSON_SITE));
    },
    says: /answer\.error_message: is required/,
  },
  NONCE_MISMATCH: {
    run: () => {
      jsonGateway.behave = (r) => allowJson(r, { nonce: 'replayed-nonce' });
      return postLicense(emulator.url, custom(JSON_SITE));
    },
    says: /another nonce/,
  },
  GATEWAY_DENIED: {
    run: () => {
      jsonGateway.behave = (r) => ({
        format: 'json',
        error_code: '1001',
        error_message: 'no rights',
        nonce: r.nonce,
      });
      return postLicense(emulator.url, custom(JSON_SITE));
    },
    says: /error code 1001: no rights/,
  },
  LICENSE_EXPIRED: {
    run: () =>
      postLicense(
        emulator.url,
        issuer.issue({
          cid: CID,
          policy: { playback_policy: { limit: true, expire_date: inSeconds(-10) } },
        }),
      ),
    says: /license period ended/,
  },
  LICENSE_NOT_YET_VALID: {
    run: () => {
      xmlGateway.behave = (r) =>
        allowXml(r, { LIMIT: 'Y', PD_START: inSeconds(600), PD_END: inSeconds(1200) });
      return postLicense(emulator.url, custom(XML_SITE));
    },
    says: /starts in (599|600) s/,
  },
  NO_KEY_FOR_CID: {
    run: () => postLicense(emulator.url, issuer.issue({ cid: 'unpackaged' })),
    says: /No key for cid "unpackaged"/,
  },
  KID_NOT_LICENSED: {
    run: () =>
      postLicense(emulator.url, issuer.issue({ cid: CID }), clearKeyRequest(KID, OTHER_KID)),
    says: new RegExp(
      `key ID ${OTHER_KID}, which the configured keys of cid "${CID}" do not include`,
    ),
  },
  ORIGIN_NOT_ALLOWED: {
    run: () =>
      postLicense(emulator.url, issuer.issue({ cid: CID }), undefined, {
        origin: 'http://other.test',
      }),
    says: /Origin http:\/\/other\.test is not in allowedOrigins/,
  },
  NOT_FOUND: { run: () => request('/licence'), says: /No such path \/licence/ },
  METHOD_NOT_ALLOWED: { run: () => request('/license'), says: /\/license takes POST, not GET/ },
  PAYLOAD_TOO_LARGE: {
    run: () =>
      postLicense(emulator.url, issuer.issue({ cid: CID }), `{"kids":["${'A'.repeat(70_000)}"]}`),
    says: /larger than 65536 bytes/,
  },
  INTERNAL_ERROR: {
    run: () => postLicense(broken.url, createTokenIssuer(TOKEN_SITE).issue({ cid: CID })),
    says: /failed unexpectedly/,
  },
};

describe('every error code over HTTP', () => {
  it.each(Object.keys(ERROR_CODES) as EmulatorErrorCode[])('%s', async (code) => {
    const scenario = scenarios[code];
    const res = await scenario.run();
    expect(res.body['error_code']).toBe(code);
    expect(res.status).toBe(ERROR_CODES[code].status);
    expect(res.headers.get('x-drm-error-code')).toBe(code);
    expect(res.body['message']).toMatch(scenario.says);
    expect(
      Object.keys(res.body).every((k) => ['error_code', 'message', 'detail'].includes(k)),
    ).toBe(true);
    const text = JSON.stringify(res.body);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/\n\s+at /);
  });

  it('tells a hash made with another access key from one made with the other hash reading', async () => {
    const res = await postLicense(
      emulator.url,
      createLicenseToken({ ...TOKEN_SITE, accessKey: 'wrong', cid: CID }),
    );
    expect(res.body['error_code']).toBe('HASH_MISMATCH');
    expect(res.body['message']).toMatch(/matches neither hash reading/);
  });

  it('hands the internal error to onInternalError and keeps its text out of the answer', () => {
    expect(internalErrors.length).toBeGreaterThan(0);
    expect(String(internalErrors[0])).toContain('internal detail');
  });

  it('answers a browser origin on the list and exposes the x-drm headers to it', async () => {
    const res = await postLicense(emulator.url, issuer.issue({ cid: CID }), undefined, {
      origin: ALLOWED_ORIGIN,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toContain('x-drm-license-policy');
  });
});
