import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createCustomDataHandler,
  createGatewayHandler,
  toNodeListener,
  type GatewayDecision,
  type GatewayRequest,
  type WebHandler,
} from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/index.ts';
import {
  b64url,
  CID,
  clearKeyRequest,
  hexOf,
  inSeconds,
  JSON_SITE,
  KEY,
  KID,
  OTHER_KID,
  postLicense,
  refusalOf,
  XML_SITE,
} from './helpers.ts';

// A site built only from site-kit's handlers: its gateway pages (JSON and XML sites) and the
// endpoint that hands custom data to the player. Users: alice may watch, bob may not, carol may
// watch without a time limit.
const SITE_KEY_OF_KID = '5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a';
const seenBySite: GatewayRequest[] = [];

function decide(request: GatewayRequest): GatewayDecision {
  seenBySite.push(request);
  // duration 0: no limit, in either format.
  if (request.user_id === 'carol') {
    return { allow: true, playback_policy: { limit: true, duration: 0 } };
  }
  if (request.user_id !== 'alice') {
    return {
      allow: false,
      error_code: '1001',
      error_message: `${request.user_id} has no subscription`,
    };
  }
  if (request.cid === 'site-keyed') {
    return {
      allow: true,
      playback_policy: { limit: true, expire_date: inSeconds(3600) },
      external_key: { mpeg_cenc: { key_id: OTHER_KID, key: SITE_KEY_OF_KID } },
    };
  }
  return { allow: true, playback_policy: { limit: true, duration: 600 } };
}

const customDataFor = (siteId: string, siteKey: string) =>
  createCustomDataHandler({
    siteId,
    siteKey,
    // The site would read its session cookie here; the test names the user in a header.
    authorize: (request) => ({ allow: true, userId: request.headers.get('x-test-user') ?? '' }),
  });

const routes: Record<string, WebHandler> = {
  '/gateway/json': createGatewayHandler({ siteKey: JSON_SITE.siteKey, authorize: decide }),
  '/gateway/xml': createGatewayHandler({ siteKey: XML_SITE.siteKey, authorize: decide }),
  '/custom-data/json': customDataFor(JSON_SITE.siteId, JSON_SITE.siteKey),
  '/custom-data/xml': customDataFor(XML_SITE.siteId, XML_SITE.siteKey),
};

let site: Server;
let siteUrl: string;
let emulator: RunningEmulator;

beforeAll(async () => {
  site = createServer(
    toNodeListener(async (request) => {
      const route = routes[new URL(request.url).pathname];
      return route ? route(request) : new Response('not found', { status: 404 });
    }),
  );
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  emulator = await startEmulator({
    sites: [
      { ...JSON_SITE, gatewayUrl: `${siteUrl}/gateway/json` },
      { ...XML_SITE, gatewayUrl: `${siteUrl}/gateway/xml`, gatewayFormat: 'xml' },
    ],
    keys: { [CID]: { kid: KID, key: KEY } },
  });
});
afterAll(async () => {
  await emulator.close();
  await new Promise((resolve) => site.close(resolve));
});

/** What a player does: ask the site for custom data, then send it with the license request. */
async function play(format: 'json' | 'xml', user: string, cid: string, kid: string) {
  const response = await fetch(`${siteUrl}/custom-data/${format}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': user },
    body: JSON.stringify({ cid, drm_type: 'Widevine' }),
  });
  expect(response.status).toBe(200);
  return postLicense(emulator.url, await response.text(), clearKeyRequest(kid));
}

describe.each(['json', 'xml'] as const)('with a site-kit gateway (%s)', (format) => {
  it('issues the configured key to a user the site allows', async () => {
    const res = await play(format, 'alice', CID, KID);
    expect(res.status).toBe(200);
    expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
    expect(seenBySite.at(-1)).toMatchObject({ format, user_id: 'alice', cid: CID });
    const policy = JSON.parse(res.headers.get('x-drm-license-policy') ?? '') as Record<
      string,
      unknown
    >;
    expect(policy['limit']).toBe(true);
  });

  it('issues a license without a time limit for duration 0, as the JSON answer means it', async () => {
    const res = await play(format, 'carol', CID, KID);
    expect(res.status).toBe(200);
    expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
    const policy = JSON.parse(res.headers.get('x-drm-license-policy') ?? '') as Record<
      string,
      unknown
    >;
    expect(policy).not.toHaveProperty('expire_date');
    expect([policy['limit'], policy['duration']]).toEqual(
      format === 'json' ? [true, 0] : [false, undefined],
    );
  });

  it("issues the site's external key when its gateway sends one", async () => {
    const res = await play(format, 'alice', 'site-keyed', OTHER_KID);
    expect(res.status).toBe(200);
    const keys = res.body['keys'] as { kid: string; k: string }[];
    expect(keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([[OTHER_KID, SITE_KEY_OF_KID]]);
  });

  it("denies a user the site refuses, passing on the site's code and message", async () => {
    const res = await play(format, 'bob', CID, KID);
    const refusal = refusalOf(res);
    expect(refusal.errorCode).toBe('8002');
    expect(JSON.parse(refusal.message)).toEqual({
      ERROR: '1001',
      MESSAGE: 'bob has no subscription',
    });
  });
});
