/// <reference path="../../examples/bun/server.ts" />
/// <reference path="../../examples/deno/main.ts" />
/// <reference path="../../examples/node/server.ts" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeGatewayResponse,
  encodeGatewayRequest,
  encrypt,
  verifyLicenseToken,
  type GatewayFormat,
} from '@multidrm/site-kit';
import { startEmulator, type RunningEmulator } from '@multidrm/emulator';
import { vectors } from '../support/vectors.ts';
import { vectorsV2 } from '../support/vectors-v2.ts';
import { SITE, TARGETS, type Answer, type Server } from './targets.ts';
import { bundleWorker } from '../../packages/site-kit/bench/bundle.ts';
import { workerdCompatibilityDate, wranglerConfig } from './workerd.ts';

// One table, every runtime: the site of examples/ (token endpoint, gateway and license proxy) with
// real encrypted bodies, served by Node, a Lambda handler, Bun, Deno and workerd. Each runtime is
// started once; the license proxy's upstream is the real emulator, in this process.
const servers = new Map<string, Server>();
const KID = '00112233445566778899aabbccddeeff';
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    sites: [{ siteId: SITE.SITE_ID, siteKey: SITE.SITE_KEY, accessKey: SITE.ACCESS_KEY }],
    keys: { movie: { kid: KID, key: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' } },
  });
  const started = await Promise.allSettled(
    Object.entries(TARGETS).map(async ([name, start]) =>
      servers.set(name, await start(emulator.licenseUrl)),
    ),
  );
  const failed = started.filter((s) => s.status === 'rejected');
  if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
}, 120_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop()));
  await emulator?.close();
});

const keys = { siteKey: SITE.SITE_KEY, accessKey: SITE.ACCESS_KEY, siteId: SITE.SITE_ID };
const json = (value: unknown, cookie?: string): RequestInit => ({
  method: 'POST',
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
});
const gatewayRequest = (format: GatewayFormat, userId: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: encodeGatewayRequest(
    format === 'json'
      ? { format, user_id: userId, cid: 'movie', nonce: `n-${format}`, drm_type: 'Widevine' }
      : { format, user_id: userId, cid: 'movie', nonce: `n-${format}` },
    SITE.SITE_KEY,
  ),
});
const form = (data: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `data=${encodeURIComponent(data)}`,
});
/** A ClearKey license request as the CDM sends it, from a signed-in user unless told otherwise. */
const license = (cookie = 'session=user-1'): RequestInit => ({
  method: 'POST',
  body: JSON.stringify({
    kids: [Buffer.from(KID, 'hex').toString('base64url')],
    type: 'temporary',
  }),
  headers: { 'content-type': 'application/octet-stream', ...(cookie ? { cookie } : {}) },
});
const badPlaintext = encrypt('{"user_id": not json', SITE.SITE_KEY);
const badPadding = (() => {
  const bytes = Buffer.from(badPlaintext, 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x55;
  return bytes.toString('base64');
})();

const cases: [string, (server: Server) => Promise<void>][] = [
  [
    'issues a signed-in user a v2 token that the Node verifier accepts',
    async (server) => {
      const answer = await server.send(
        '/drm/token',
        json({ cid: 'movie', drm_type: 'Widevine' }, 'session=user-1'),
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const token = verifyLicenseToken(answer.text, keys);
      expect(token).toMatchObject({
        version: 2,
        cid: 'movie',
        userId: 'user-1',
        drmType: 'Widevine',
      });
      expect(token.policy).toEqual({
        policy_version: 2,
        playback_policy: { persistent: false, license_duration: 3600 },
        security_policy: [{ track_type: 'ALL', widevine: { security_level: 1 } }],
      });
    },
  ],
  [
    "refuses a signed-out user with 401 and the site's reason",
    async (server) => {
      const answer = await server.send('/drm/token', json({ cid: 'movie', drm_type: 'Widevine' }));
      expect([answer.status, answer.text]).toEqual([401, 'Sign in first.']);
    },
  ],
  [
    'answers a request without cid with 400 naming the field',
    async (server) => {
      const answer = await server.send(
        '/drm/token',
        json({ drm_type: 'Widevine' }, 'session=user-1'),
      );
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/^cid: is required/);
    },
  ],
  [
    'answers a GET on the token endpoint with 405 and Allow: POST',
    async (server) => {
      const answer = await server.send('/drm/token');
      expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'POST']);
    },
  ],
  [
    'answers an encrypted JSON gateway request with an encrypted allow carrying its nonce',
    async (server) => {
      const answer = await server.send('/drm/gateway', gatewayRequest('json', 'user-1'));
      expect(answer.status).toBe(200);
      expect(decodeGatewayResponse(answer.text, 'json', SITE.SITE_KEY)).toMatchObject({
        error_code: '0000',
        nonce: 'n-json',
        playback_policy: { limit: true, duration: 3600 },
      });
    },
  ],
  [
    'answers an XML gateway request (old specification) in XML',
    async (server) => {
      const answer = await server.send('/drm/gateway', gatewayRequest('xml', 'user-1'));
      expect(decodeGatewayResponse(answer.text, 'xml', SITE.SITE_KEY)).toMatchObject({
        ERROR: '0000',
        LIMIT: 'Y',
        NONCE: 'n-xml',
      });
    },
  ],
  [
    "answers a user the site refuses with the site's own code, encrypted",
    async (server) => {
      const answer = await server.send('/drm/gateway', gatewayRequest('json', ''));
      expect(decodeGatewayResponse(answer.text, 'json', SITE.SITE_KEY)).toMatchObject({
        error_code: '4031',
        nonce: 'n-json',
      });
    },
  ],
  [
    'answers a bad padding and a bad plaintext with one and the same 400',
    async (server) => {
      const strip = ({ status, headers, text }: Answer) => ({
        status,
        headers: [...headers].filter(([n]) => n !== 'date'),
        text,
      });
      const padding = strip(await server.send('/drm/gateway', form(badPadding)));
      const plaintext = strip(await server.send('/drm/gateway', form(badPlaintext)));
      expect(padding.status).toBe(400);
      expect(padding).toEqual(plaintext);
    },
  ],
  [
    'reproduces the AES, v1 and v2 token vectors byte for byte, and verifies the v2 ones',
    async (server) => {
      const report = await server.vectors();
      expect(report.aes).toEqual(vectors.aes.map((v) => v.ciphertext));
      expect(report.tokens).toEqual([
        ...vectors.token.flatMap((v) => [v.expected.token, v.expected.token_raw_digest]),
        ...vectorsV2.vectors.map((v) => v.token),
      ]);
      expect(report.verified).toEqual(vectorsV2.vectors.map((v) => v.policy_plaintext));
    },
  ],
  [
    "proxies a signed-in user's license request to the emulator, which issues the license",
    async (server) => {
      const answer = await server.send('/drm/license?drmType=widevine&cid=movie', license());
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({
        keys: [{ kid: Buffer.from(KID, 'hex').toString('base64url') }],
      });
      const checked = emulator.events.recent().findLast((e) => e.type === 'token-checked');
      expect(checked).toMatchObject({ ok: true, version: 2, userId: 'user-1', cid: 'movie' });
    },
  ],
  [
    'refuses a signed-out user at the proxy; the emulator hears nothing',
    async (server) => {
      const before = emulator.events.recent().length;
      const answer = await server.send('/drm/license?drmType=widevine&cid=movie', license(''));
      expect([answer.status, JSON.parse(answer.text)]).toEqual([
        401,
        { code: 'SITE_REFUSED', message: 'Sign in first.' },
      ]);
      expect(emulator.events.recent()).toHaveLength(before);
    },
  ],
  [
    "relays the emulator's refusal (HTTP 200 + errorCode 7011) as it came",
    async (server) => {
      emulator.faults.set([{ fault: 'token-expired', times: 1 }]);
      const answer = await server.send('/drm/license?drmType=widevine&cid=movie', license());
      emulator.faults.clear();
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({ errorCode: '7011' });
    },
  ],
  [
    "answers an unknown DRM with the proxy's own 400 and JSON code",
    async (server) => {
      const answer = await server.send('/drm/license?drmType=betamax&cid=movie', license());
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'UNKNOWN_DRM' });
    },
  ],
];

describe.each(Object.keys(TARGETS))('%s', (name) => {
  it.each(cases)('%s', async (_case, check) => {
    await check(servers.get(name) as Server);
  });
});

describe('the Workers example', () => {
  it('runs without nodejs_compat and names a compatibility date this workerd supports', () => {
    const config = wranglerConfig();
    expect(config.flags).not.toContain('nodejs_compat');
    expect(config.compatibilityDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(config.compatibilityDate <= workerdCompatibilityDate).toBe(true);
  });

  it('fails to bundle, naming the function, when a Worker imports a synchronous function', async () => {
    const worker = `import { createTokenIssuer } from '@multidrm/site-kit/token';
export default { fetch: () => new Response(createTokenIssuer({}).issue({ cid: 'm' })) };`;
    await expect(bundleWorker({ code: worker })).rejects.toThrow(
      /"createTokenIssuer" is not exported by "packages\/site-kit\/src\/web\/token\.ts"/,
    );
  });
});
