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
  refusalOf,
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
      not_enforced: [
        'security_policy: hardware_drm false, output_protect {control_hdcp 1}: ClearKey has no security levels and no output protection (HDCP, CGMS-A, analog output), so it is not enforced',
      ],
    });
  });

  it('uses the external key of the token instead of the configured one (upper-case hex read too)', async () => {
    const external = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    // The issuer writes lower case only; a builder that lets upper case through is still read.
    const token = handMadeToken(
      { external_key: { mpeg_cenc: { key_id: OTHER_KID.toUpperCase(), key: external } } },
      { cid: 'not-configured' },
    );
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
    const refusal = refusalOf(await postLicense(emulator.url, token));
    expect(refusal).toMatchObject({ errorCode: '8711', reason: 'LICENSE_EXPIRED' });
    expect(refusal.detail).toMatch(/ended 1[12]\d s ago/);
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

  it('refuses a token of another site key with 7016 (a token code, not the custom data code 7008) and says so in a sentence', async () => {
    const forged = createLicenseToken({
      ...TOKEN_SITE,
      siteKey: 'X'.repeat(32),
      cid: CID,
    });
    const res = await postLicense(emulator.url, forged);
    expect(refusalOf(res)).toMatchObject({ errorCode: '7016', reason: 'TOKEN_DECRYPT_FAILED' });
    expect(refusalOf(res).detail).toMatch(/could not be decrypted/);
    expect(res.text).not.toContain(TOKEN_SITE.siteKey);
  });

  it('refuses a token in URL-safe or unpadded base64 with 7009, as the service reads only standard base64', async () => {
    // "???" puts a "?" (0x3f) last in a 3-byte group, which base64 writes as "/".
    const token = issuer.issue({ cid: CID, userId: 'user-???' });
    expect(token).toMatch(/\/.*=$/);
    expect((await postLicense(emulator.url, token)).body).toHaveProperty('keys');
    const urlSafe = token.replace(/\+/g, '-').replace(/\//g, '_');
    const unpadded = token.replace(/=+$/, '');
    for (const form of [urlSafe, unpadded]) {
      const refusal = refusalOf(await postLicense(emulator.url, form));
      expect(refusal).toMatchObject({ errorCode: '7009', reason: 'MALFORMED_TOKEN' });
      expect(refusal.detail).toMatch(/not standard base64/);
    }
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

describe('where the license request goes and where the token travels', () => {
  it.each(['/ri/licenseManager.do', '/ri/clearkey/licenseManager.do', '/license'])(
    'issues the license at %s',
    async (path) => {
      const res = await postLicense(emulator.url, issuer.issue({ cid: CID }), undefined, {}, path);
      expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
    },
  );

  it('takes the token from the query parameter named like the header, "+" and "/" unescaped or escaped', async () => {
    // "~~~" and "???" put "~" and "?" at every byte position mod 3: the base64 has "+" and "/".
    const token = issuer.issue({ cid: CID, userId: 'user~~~???' });
    expect(token).toMatch(/\+.*\/|\/.*\+/);
    for (const value of [token, encodeURIComponent(token)]) {
      const path = `/ri/licenseManager.do?x-drm-custom-data=${value}`;
      const res = await postLicense(emulator.url, undefined, undefined, {}, path);
      expect(res.body['keys']).toHaveLength(1);
    }
  });

  it('prefers the header over the query parameter', async () => {
    const path = '/ri/licenseManager.do?x-drm-custom-data=garbage';
    const res = await postLicense(emulator.url, issuer.issue({ cid: CID }), undefined, {}, path);
    expect(res.body['keys']).toHaveLength(1);
  });
});

describe('the validity window of a token', () => {
  it('is 600 s by default: a token 590 s old is served, one 610 s old is refused with 7011', async () => {
    const young = await postLicense(
      emulator.url,
      issuer.issue({ cid: CID, timestamp: inSeconds(-590) }),
    );
    expect(young.body['keys']).toHaveLength(1);
    const old = refusalOf(
      await postLicense(emulator.url, issuer.issue({ cid: CID, timestamp: inSeconds(-610) })),
    );
    expect(old).toMatchObject({ errorCode: '7011', message: 'Token expired', field: 'timestamp' });
    expect(old.detail).toMatch(/valid for 600 s after its timestamp/);
  });

  it('follows tokenValiditySeconds', async () => {
    const strict = await startEmulator({
      sites: [TOKEN_SITE],
      keys: { [CID]: { kid: KID, key: KEY } },
      tokenValiditySeconds: 60,
    });
    try {
      const res = await postLicense(
        strict.url,
        issuer.issue({ cid: CID, timestamp: inSeconds(-90) }),
      );
      expect(refusalOf(res).errorCode).toBe('7011');
    } finally {
      await strict.close();
    }
  });

  it.each([
    [0, 'refuses', '7011'],
    [30, 'accepts', undefined],
  ])(
    'with clockSkewSeconds %i, %s a token 10 s in the future',
    async (clockSkewSeconds, _what, errorCode) => {
      const now = Date.UTC(2030, 0, 1, 12, 0, 0);
      const skewed = await startEmulator(
        { sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } }, clockSkewSeconds },
        { now: () => now },
      );
      try {
        const token = issuer.issue({ cid: CID, timestamp: new Date(now + 10_000) });
        const res = await postLicense(skewed.url, token);
        if (errorCode === undefined) {
          expect(res.body['keys']).toHaveLength(1);
        } else {
          expect(refusalOf(res)).toMatchObject({ errorCode, reason: 'TOKEN_NOT_YET_VALID' });
          expect(refusalOf(res).detail).toMatch(/10 s in the future .*allowed clock skew 0 s/);
        }
      } finally {
        await skewed.close();
      }
    },
  );

  it("a site's own tokenValiditySeconds wins over the global one (the operator sets it per site)", async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const other = { ...TOKEN_SITE, siteId: 'SHORTSITE', tokenValiditySeconds: 60 };
    const emu = await startEmulator(
      { sites: [TOKEN_SITE, other], keys: { [CID]: { kid: KID, key: KEY } } },
      { now: () => now },
    );
    try {
      const aged = new Date(now - 120_000);
      const long = await postLicense(emu.url, issuer.issue({ cid: CID, timestamp: aged }));
      expect(long.body['keys']).toHaveLength(1);
      const short = createTokenIssuer(other).issue({ cid: CID, timestamp: aged });
      const refused = refusalOf(await postLicense(emu.url, short));
      expect(refused).toMatchObject({ errorCode: '7011', reason: 'TOKEN_EXPIRED' });
      expect(refused.detail).toMatch(/valid for 60 s after its timestamp/);
    } finally {
      await emu.close();
    }
  });

  it('tolerates 5 s in the future by default and no more', async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const emu = await startEmulator(
      { sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } },
      { now: () => now },
    );
    try {
      const ok = await postLicense(
        emu.url,
        issuer.issue({ cid: CID, timestamp: new Date(now + 5000) }),
      );
      expect(ok.body['keys']).toHaveLength(1);
      const early = await postLicense(
        emu.url,
        issuer.issue({ cid: CID, timestamp: new Date(now + 6000) }),
      );
      // The service's table has one code for a timestamp outside the window, either side: 7011;
      // our reason stays an extra member.
      expect(refusalOf(early)).toMatchObject({ errorCode: '7011', reason: 'TOKEN_NOT_YET_VALID' });
    } finally {
      await emu.close();
    }
  });
});

describe('a cid of two key IDs (video and audio) beside another cid', () => {
  const AUDIO_KID = '0123456789abcdef0123456789abcdef';
  let two: RunningEmulator;
  beforeAll(async () => {
    two = await startEmulator({
      sites: [TOKEN_SITE],
      keys: {
        [CID]: [
          { kid: KID, key: KEY },
          { kid: AUDIO_KID, key: KEY },
        ],
        trailer: { kid: OTHER_KID, key: KEY },
      },
    });
  });
  afterAll(() => two.close());

  it('a token for the other cid asking for one, the other or both of its keys is 7012, never 6004', async () => {
    const trailer = issuer.issue({ cid: 'trailer' });
    for (const kids of [[KID], [AUDIO_KID], [KID, AUDIO_KID], [OTHER_KID, AUDIO_KID]]) {
      const refusal = refusalOf(await postLicense(two.url, trailer, clearKeyRequest(...kids)));
      expect([kids, refusal.errorCode, refusal.reason]).toEqual([kids, '7012', 'CID_MISMATCH']);
    }
  });

  it('a token for the cid gets any of its keys; a key of no cid is 6004', async () => {
    const movie = issuer.issue({ cid: CID });
    const res = await postLicense(two.url, movie, clearKeyRequest(AUDIO_KID));
    expect((res.body['keys'] as { kid: string }[]).map((k) => hexOf(k.kid))).toEqual([AUDIO_KID]);
    const unknown = refusalOf(
      await postLicense(two.url, movie, clearKeyRequest(KID, 'f'.repeat(32))),
    );
    expect([unknown.errorCode, unknown.reason]).toEqual(['6004', 'KID_NOT_LICENSED']);
  });
});
