import { createLicenseToken, createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import {
  b64url,
  CID,
  clearKeyRequest,
  handMadeToken,
  hexOf,
  inSeconds,
  KEY,
  KID,
  OTHER_KID,
  postLicense,
  TOKEN_SITE,
} from './helpers.ts';

let emulator: RunningEmulator;
const seen: FlowEvent[] = [];
const issuer = createTokenIssuer(TOKEN_SITE);

beforeAll(async () => {
  emulator = await startEmulator({
    sites: [TOKEN_SITE],
    keys: { [CID]: { kid: KID, key: KEY } },
  });
  emulator.events.on((e) => seen.push(e));
});
afterAll(() => emulator.close());

describe('token mode over HTTP', () => {
  it('issues a ClearKey license with the configured key for the token cid', async () => {
    const res = await postLicense(emulator.url, issuer.issue({ cid: CID }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
      type: 'temporary',
    });
    expect(JSON.parse(res.headers.get('x-drm-license-policy') ?? '')).toEqual({
      limit: false,
      persistent: false,
    });
  });

  it('answers persistent-license and the effective policy when the token says persistent', async () => {
    const token = issuer.issue({
      cid: CID,
      policy: {
        playback_policy: { limit: true, persistent: true, duration: 3600 },
        security_policy: { hardware_drm: false, output_protect: { control_hdcp: 1 } },
      },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.status).toBe(200);
    expect(res.body['type']).toBe('persistent-license');
    expect(JSON.parse(res.headers.get('x-drm-license-policy') ?? '')).toEqual({
      limit: true,
      persistent: true,
      duration: 3600,
      security_policy: { hardware_drm: false, output_protect: { control_hdcp: 1 } },
    });
  });

  it('uses the external key of the token instead of the configured one', async () => {
    const external = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const token = issuer.issue({
      cid: 'not-configured',
      policy: { external_key: { mpeg_cenc: { key_id: OTHER_KID.toUpperCase(), key: external } } },
    });
    const res = await postLicense(emulator.url, token, clearKeyRequest(OTHER_KID));
    expect(res.status).toBe(200);
    const keys = res.body['keys'] as { kid: string; k: string }[];
    expect(keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([[OTHER_KID, external]]);
  });

  it('applies the spec precedence: with limit true, duration wins over a past expire_date', async () => {
    const token = handMadeToken({
      playback_policy: { limit: true, duration: 60, expire_date: inSeconds(-3600) },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.status).toBe(200);
    const policy = JSON.parse(res.headers.get('x-drm-license-policy') ?? '') as Record<
      string,
      unknown
    >;
    expect(policy['duration']).toBe(60);
    expect(policy['expire_date']).toBeUndefined();
    expect(policy['ignored']).toEqual(['expire_date: duration is set, and duration wins']);
  });

  it('ignores expire_date when limit is false, as the spec says', async () => {
    const token = handMadeToken({
      playback_policy: { limit: false, expire_date: inSeconds(-3600) },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.status).toBe(200);
    const policy = JSON.parse(res.headers.get('x-drm-license-policy') ?? '') as Record<
      string,
      unknown
    >;
    expect(policy).toMatchObject({
      limit: false,
      ignored: ['expire_date: applied only when limit is true'],
    });
  });

  it('denies a license whose expire_date is in the past, saying by how much', async () => {
    const token = issuer.issue({
      cid: CID,
      policy: { playback_policy: { limit: true, expire_date: inSeconds(-120) } },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.status).toBe(403);
    expect(res.body['error_code']).toBe('LICENSE_EXPIRED');
    expect(res.body['message']).toMatch(/ended 1[12]\d s ago/);
  });

  it('issues the license with a future expire_date and reports it in the policy header', async () => {
    const end = inSeconds(600);
    const token = issuer.issue({
      cid: CID,
      policy: { playback_policy: { limit: true, expire_date: end } },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.headers.get('x-drm-license-policy') ?? '')).toEqual({
      limit: true,
      persistent: false,
      expire_date: end,
    });
  });

  it('denies a token of another site key with DECRYPT_FAILED and says so in a sentence', async () => {
    const forged = createLicenseToken({
      ...TOKEN_SITE,
      siteKey: 'X'.repeat(32),
      cid: CID,
    });
    const res = await postLicense(emulator.url, forged);
    expect(res.status).toBe(403);
    expect(res.body['error_code']).toBe('DECRYPT_FAILED');
    expect(JSON.stringify(res.body)).not.toContain(TOKEN_SITE.siteKey);
  });

  it('emits the flow events of an issued license, with timings and no secrets', async () => {
    const token = issuer.issue({ cid: CID, userId: 'user-42' });
    const res = await postLicense(emulator.url, token);
    const id = res.headers.get('x-drm-request-id');
    const flow = seen.filter((e) => e.requestId === id);
    expect(flow.map((e) => e.type)).toEqual(['license-request', 'token-checked', 'license-issued']);
    expect(flow[1]).toMatchObject({
      ok: true,
      siteId: TOKEN_SITE.siteId,
      userId: 'user-42',
      cid: CID,
    });
    for (const e of flow) expect(e.elapsedMs).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(flow);
    for (const secret of [token, KEY, b64url(KEY), TOKEN_SITE.siteKey, TOKEN_SITE.accessKey]) {
      expect(text).not.toContain(secret);
    }
  });
});
