import { createCustomData, encrypt, type GatewayRequest } from '@multidrm/site-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import {
  allowJson,
  allowXml,
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
  startTestGateway,
  XML_SITE,
  type TestGateway,
} from './helpers.ts';

let emulator: RunningEmulator;
let jsonGateway: TestGateway;
let xmlGateway: TestGateway;
const seen: FlowEvent[] = [];

beforeAll(async () => {
  jsonGateway = await startTestGateway(JSON_SITE.siteKey, 'json', (r) => allowJson(r));
  xmlGateway = await startTestGateway(XML_SITE.siteKey, 'xml', (r) => allowXml(r));
  emulator = await startEmulator({
    sites: [
      { ...JSON_SITE, gatewayUrl: `${jsonGateway.url}?secret=q` },
      { ...XML_SITE, gatewayUrl: xmlGateway.url, gatewayFormat: 'xml' },
    ],
    keys: { [CID]: { kid: KID, key: KEY } },
  });
  emulator.events.on((e) => seen.push(e));
});
afterAll(async () => {
  await emulator.close();
  await jsonGateway.close();
  await xmlGateway.close();
});
beforeEach(() => {
  jsonGateway.behave = (r) => allowJson(r);
  xmlGateway.behave = (r) => allowXml(r);
});

const customData = (site: typeof JSON_SITE, extra: { oid?: string; cid?: string } = {}) =>
  createCustomData({
    siteId: site.siteId,
    siteKey: site.siteKey,
    drmType: 'Widevine',
    userId: 'user-7',
    cid: extra.cid ?? CID,
    ...(extra.oid === undefined ? {} : { oid: extra.oid }),
  });

describe('gateway mode, JSON callback', () => {
  it('calls the gateway with the custom data fields and a fresh nonce, then issues the license', async () => {
    const res = await postLicense(emulator.url, customData(JSON_SITE, { oid: 'order-9' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
      type: 'temporary',
    });
    const [request] = jsonGateway.requests.slice(-1) as [GatewayRequest];
    expect(request).toMatchObject({
      format: 'json',
      user_id: 'user-7',
      cid: CID,
      oid: 'order-9',
      drm_type: 'Widevine',
    });
    await postLicense(emulator.url, customData(JSON_SITE));
    const nonces = jsonGateway.requests.slice(-2).map((r) => r.nonce);
    expect(nonces[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it("uses the answer's policy, external key and response_user_id", async () => {
    const external = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    jsonGateway.behave = (r) =>
      allowJson(r, {
        response_user_id: 'site-user-1',
        playback_policy: { limit: true, persistent: true, duration: 120 },
        external_key: { mpeg_cenc: { key_id: OTHER_KID, key: external } },
      });
    const res = await postLicense(emulator.url, customData(JSON_SITE), clearKeyRequest(OTHER_KID));
    expect(res.status).toBe(200);
    expect(res.body['type']).toBe('persistent-license');
    const keys = res.body['keys'] as { kid: string; k: string }[];
    expect(keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([[OTHER_KID, external]]);
    expect(JSON.parse(res.headers.get('x-drm-license-policy') ?? '')).toEqual({
      limit: true,
      persistent: true,
      duration: 120,
    });
    const issued = seen.find(
      (e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === 'license-issued',
    );
    expect(issued).toMatchObject({ userId: 'site-user-1', mode: 'gateway' });
  });

  it("denies with the site's own code and message when the gateway refuses", async () => {
    jsonGateway.behave = (r) => ({
      format: 'json',
      error_code: '4031',
      error_message: 'subscription ended',
      nonce: r.nonce,
    });
    const res = await postLicense(emulator.url, customData(JSON_SITE));
    const refusal = refusalOf(res);
    expect(refusal).toMatchObject({ errorCode: '8002', reason: 'GATEWAY_DENIED' });
    expect(JSON.parse(refusal.message)).toEqual({ ERROR: '4031', MESSAGE: 'subscription ended' });
    expect(refusal.detail).toContain('4031: subscription ended');
    const denied = seen.find(
      (e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === 'license-denied',
    );
    expect(denied).toMatchObject({
      errorCode: '8002',
      facts: { siteErrorCode: '4031', siteErrorMessage: 'subscription ended' },
    });
  });

  it('takes any numeric site code in a JSON refusal, such as "401" (only XML has 4 digits)', async () => {
    jsonGateway.behave = (r) => ({
      format: 'json',
      error_code: '401',
      error_message: 'sign in',
      nonce: r.nonce,
    });
    const refusal = refusalOf(await postLicense(emulator.url, customData(JSON_SITE)));
    expect(refusal).toMatchObject({ errorCode: '8002', reason: 'GATEWAY_DENIED' });
    expect(JSON.parse(refusal.message)).toEqual({ ERROR: '401', MESSAGE: 'sign in' });
  });

  it('takes a refusal without nonce as a refusal, keeps the site code, and warns in the event', async () => {
    jsonGateway.behave = () => ({ format: 'json', error_code: '4031', error_message: 'ended' });
    const res = await postLicense(emulator.url, customData(JSON_SITE));
    const refusal = refusalOf(res);
    expect(refusal).toMatchObject({ errorCode: '8002' });
    expect(JSON.parse(refusal.message)).toEqual({ ERROR: '4031', MESSAGE: 'ended' });
    const answered = seen.find(
      (e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === 'callback-answered',
    );
    expect(answered).toMatchObject({
      ok: false,
      siteErrorCode: '4031',
      warning: expect.stringMatching(/no nonce/),
    });
  });

  it('refuses an allowing answer without nonce as an invalid gateway answer (8706)', async () => {
    // Written by hand: site-kit's own encoder would refuse to send it.
    const answer = '{"error_code":"0000","error_message":"","playback_policy":{"limit":false}}';
    jsonGateway.behave = () => ({ raw: encrypt(answer, JSON_SITE.siteKey) });
    const refusal = refusalOf(await postLicense(emulator.url, customData(JSON_SITE)));
    expect(refusal).toMatchObject({ errorCode: '8706', reason: 'GATEWAY_BAD_RESPONSE' });
    expect(refusal.detail).toMatch(/answer.nonce: is required when the answer allows/);
  });

  it('emits callback-sent and callback-answered without the gateway query or any key', async () => {
    const res = await postLicense(emulator.url, customData(JSON_SITE));
    const flow = seen.filter((e) => e.requestId === res.headers.get('x-drm-request-id'));
    expect(flow.map((e) => e.type)).toEqual([
      'license-request',
      'callback-sent',
      'callback-answered',
      'license-issued',
    ]);
    expect(flow[1]).toMatchObject({
      gatewayUrl: jsonGateway.url,
      format: 'json',
      userId: 'user-7',
    });
    expect(flow[2]).toMatchObject({ ok: true, httpStatus: 200, siteErrorCode: '0000' });
    const text = JSON.stringify(flow);
    for (const secret of ['secret=q', JSON_SITE.siteKey, KEY, b64url(KEY)])
      expect(text).not.toContain(secret);
  });
});

describe('gateway mode, XML callback (old specification)', () => {
  it('sends the XML request and issues the license from PACKINFO', async () => {
    const packKey = '11112222333344445555666677778888';
    xmlGateway.behave = (r) =>
      allowXml(r, {
        LIMIT: 'Y',
        PD_START: inSeconds(-60),
        PD_END: inSeconds(3600),
        PC: { HDCP: 1, 'CGMS-A': -1, APS: 0 },
        PACKINFO: {
          KEYID: Buffer.from(OTHER_KID, 'hex').toString('base64'),
          KEY: Buffer.from(packKey, 'hex').toString('base64'),
        },
      });
    const res = await postLicense(
      emulator.url,
      customData(XML_SITE, { oid: 'o-1' }),
      clearKeyRequest(OTHER_KID),
    );
    expect(res.status).toBe(200);
    const keys = res.body['keys'] as { kid: string; k: string }[];
    expect(keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([[OTHER_KID, packKey]]);
    const policy = JSON.parse(res.headers.get('x-drm-license-policy') ?? '') as Record<
      string,
      unknown
    >;
    expect(policy).toMatchObject({
      limit: true,
      persistent: false,
      output_control: { HDCP: 1, 'CGMS-A': -1, APS: 0 },
      not_enforced: [expect.stringMatching(/^PC: HDCP 1, CGMS-A -1, APS 0: ClearKey has no/)],
    });
    const [request] = xmlGateway.requests.slice(-1) as [GatewayRequest];
    expect(request).toMatchObject({ format: 'xml', user_id: 'user-7', cid: CID, oid: 'o-1' });
  });

  it('issues the configured key when the XML answer has no PACKINFO', async () => {
    const res = await postLicense(emulator.url, customData(XML_SITE));
    expect(res.status).toBe(200);
    expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
  });

  it('denies when PD_END is in the past and LIMIT is Y', async () => {
    xmlGateway.behave = (r) => allowXml(r, { LIMIT: 'Y', PD_END: inSeconds(-30) });
    const res = await postLicense(emulator.url, customData(XML_SITE));
    expect(refusalOf(res)).toMatchObject({ errorCode: '8711', reason: 'LICENSE_EXPIRED' });
  });

  it('denies with the ERROR and ERRMSG of the site', async () => {
    xmlGateway.behave = (r) => ({
      format: 'xml',
      ERROR: '9001',
      ERRMSG: 'not purchased',
      NONCE: r.nonce,
    });
    const res = await postLicense(emulator.url, customData(XML_SITE));
    const refusal = refusalOf(res);
    expect(refusal.errorCode).toBe('8002');
    expect(JSON.parse(refusal.message)).toEqual({ ERROR: '9001', MESSAGE: 'not purchased' });
  });
});

describe('gateway mode answers', () => {
  it('are the license itself (original), whatever the site answers', async () => {
    const res = await postLicense(emulator.url, customData(JSON_SITE));
    expect(Object.keys(res.body).sort()).toEqual(['keys', 'type']);
  });

  it('count the callback failure in the events with the service code beside our reason', async () => {
    jsonGateway.behave = (r) => allowJson(r, { nonce: 'not-the-nonce' });
    const res = await postLicense(emulator.url, customData(JSON_SITE));
    expect(refusalOf(res).errorCode).toBe('8004');
    const answered = seen.find(
      (e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === 'callback-answered',
    );
    expect(answered).toMatchObject({ ok: false, errorCode: '8004', reason: 'NONCE_MISMATCH' });
  });

  it('refuse custom data without its base64 padding with 7007, before any callback', async () => {
    const before = jsonGateway.requests.length;
    let value = customData(JSON_SITE);
    for (let i = 1; i < 64 && !value.endsWith('='); i++) {
      value = customData(JSON_SITE, { oid: 'x'.repeat(i) });
    }
    expect(value).toMatch(/=$/);
    const unpadded = value.replace(/=+$/, '');
    const refusal = refusalOf(await postLicense(emulator.url, unpadded));
    expect(refusal).toMatchObject({ errorCode: '7007', reason: 'INVALID_CUSTOM_DATA' });
    expect(jsonGateway.requests.length).toBe(before);
  });
});
