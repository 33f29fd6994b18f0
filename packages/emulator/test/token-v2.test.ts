import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTokenIssuer, parseTimestamp } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import {
  b64url,
  CID,
  clearKeyRequest,
  handMadeTokenV2,
  hexOf,
  KEY,
  KID,
  OTHER_KID,
  postLicense,
  refusalOf,
  TOKEN_SITE,
} from './helpers.ts';

// v2 tokens (the service's current format) from site-kit's issuer, and the v2 vectors computed by the
// service's public token samples (test/fixtures/vectors/license-token-v2-vectors.json).

interface V2Vector {
  name: string;
  drm_type: string;
  user_id: string;
  cid: string;
  policy_plaintext: string;
  token: string;
  other_layouts?: { layout: string; token: string }[];
}
const vectors = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../../../test/fixtures/vectors/license-token-v2-vectors.json'),
    'utf8',
  ),
) as {
  common: { site_id: string; site_key: string; access_key: string; timestamp: string };
  vectors: V2Vector[];
};
const VECTOR_SITE = {
  siteId: vectors.common.site_id,
  siteKey: vectors.common.site_key,
  accessKey: vectors.common.access_key,
};
const vector = (name: string) => {
  const found = vectors.vectors.find((v) => v.name.startsWith(name));
  if (found === undefined) throw new Error(`no vector "${name}"`);
  return found;
};

const AUDIO_KID = 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf';
const AUDIO_KEY = '1f1e1d1c1b1a19181716151413121110';
let emulator: RunningEmulator;
let atVectorTime: RunningEmulator;
const seen: FlowEvent[] = [];
const issuer = createTokenIssuer(TOKEN_SITE);

beforeAll(async () => {
  emulator = await startEmulator({ sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } });
  emulator.events.on((e) => seen.push(e));
  // The vectors were made at a fixed time: this emulator's clock stands one second after it.
  const vectorTime = (parseTimestamp(vectors.common.timestamp) as number) + 1000;
  atVectorTime = await startEmulator(
    {
      sites: [VECTOR_SITE],
      keys: {
        bigbuckbunny: { kid: KID, key: KEY },
        'content-3': { kid: OTHER_KID, key: KEY },
      },
    },
    { now: () => vectorTime },
  );
  atVectorTime.events.on((e) => seen.push(e));
});
afterAll(async () => {
  await emulator.close();
  await atVectorTime.close();
});

const policyOf = (res: { headers: Headers }) =>
  JSON.parse(res.headers.get('x-drm-license-policy') ?? '') as Record<string, unknown>;
const eventOf = (res: { headers: Headers }, type: FlowEvent['type']) =>
  seen.find((e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === type);

describe('v2 tokens from site-kit', () => {
  it('issue the v2 policy: persistent, durations, stream limit, in the policy header', async () => {
    const token = issuer.issue({
      cid: CID,
      policy: {
        policy_version: 2,
        playback_policy: {
          persistent: true,
          license_duration: 3600,
          rental_duration: 86_400,
          max_stream_per_user: 3,
          renewal_duration: 120,
        },
      },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.body).toEqual({
      keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
      type: 'persistent-license',
    });
    expect(policyOf(res)).toEqual({
      persistent: true,
      license_duration: 3600,
      rental_duration: 86_400,
      max_stream_per_user: 3,
      renewal_duration: 120,
    });
    expect(eventOf(res, 'token-checked')).toMatchObject({
      ok: true,
      version: 2,
      responseFormat: 'original',
    });
  });

  it('take several mpeg_cenc keys, one per track, and issue those requested', async () => {
    const token = issuer.issue({
      cid: 'not-configured',
      policy: {
        policy_version: 2,
        external_key: {
          mpeg_cenc: [
            { track_type: 'ALL_VIDEO', key_id: OTHER_KID, key: KEY },
            { track_type: 'AUDIO', key_id: AUDIO_KID, key: AUDIO_KEY },
          ],
        },
      },
    });
    const res = await postLicense(emulator.url, token, clearKeyRequest(AUDIO_KID, OTHER_KID));
    const keys = res.body['keys'] as { kid: string; k: string }[];
    expect(keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([
      [AUDIO_KID, AUDIO_KEY],
      [OTHER_KID, KEY],
    ]);
    const unknown = refusalOf(
      await postLicense(emulator.url, token, clearKeyRequest(AUDIO_KID, 'f'.repeat(32))),
    );
    expect(unknown).toMatchObject({ errorCode: '6004', reason: 'KID_NOT_LICENSED' });
    // KID is the configured key of another cid: the token names the wrong content.
    const other = refusalOf(await postLicense(emulator.url, token, clearKeyRequest(KID)));
    expect(other).toMatchObject({ errorCode: '7012', reason: 'CID_MISMATCH' });
  });

  it.each(['json', 'custom'] as const)(
    'with response_format %s, answer {license: <ClearKey license as text>, device_info, policy members}',
    async (responseFormat) => {
      const token = issuer.issue({
        cid: CID,
        responseFormat,
        policy: {
          policy_version: 2,
          playback_policy: { license_duration: 600, renewal_duration: 60 },
        },
      });
      const res = await postLicense(emulator.url, token, undefined, {
        'x-drm-stream-id': 'session-7',
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/139.0.0.0 Safari/537.36',
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual([
        'license',
        'device_info',
        'persistent',
        'license_duration',
        'renewal',
        'renewal_duration',
      ]);
      expect(typeof res.body['license']).toBe('string');
      expect(JSON.parse(res.body['license'] as string)).toEqual({
        keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
        type: 'temporary',
      });
      expect(res.body).toMatchObject({
        device_info: {
          device_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          device_model: 'ClearKey',
          session_id: 'session-7',
          is_chrome_cdm: true,
        },
        persistent: false,
        license_duration: 600,
        renewal: true,
        renewal_duration: 60,
      });
    },
  );

  it.each(['Widevine', 'Wiseplay'] as const)(
    'with response_format json for %s, the license is hex as the service writes it, a ClearKey stand-in too',
    async (drmType) => {
      const token = issuer.issue({
        cid: CID,
        drmType,
        responseFormat: 'json',
        policy: { policy_version: 2 },
      });
      const res = await postLicense(emulator.url, token);
      expect(res.status).toBe(200);
      const hex = res.body['license'] as string;
      expect(hex).toMatch(/^(?:[0-9a-f]{2})+$/);
      expect(JSON.parse(Buffer.from(hex, 'hex').toString())).toEqual({
        keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
        type: 'temporary',
      });
    },
  );

  it('with response_format original, answer the license itself', async () => {
    const token = issuer.issue({
      cid: CID,
      responseFormat: 'original',
      policy: { policy_version: 2 },
    });
    const res = await postLicense(emulator.url, token);
    expect(Object.keys(res.body)).toEqual(['keys', 'type']);
  });

  it('report what ClearKey cannot enforce (security levels, HDCP, track types) and still issue', async () => {
    const token = issuer.issue({
      cid: CID,
      keyRotation: true,
      policy: {
        policy_version: 2,
        playback_policy: { allowed_track_types: 'SD_ONLY' },
        security_policy: [
          {
            track_type: 'ALL',
            widevine: { security_level: 5, required_hdcp_version: 'HDCP_V2_2' },
          },
          { track_type: 'AUDIO', playready: { security_level: 3000 } },
        ],
      },
    });
    const res = await postLicense(emulator.url, token);
    expect(res.body['keys']).toHaveLength(1);
    const notEnforced = policyOf(res)['not_enforced'];
    expect(notEnforced).toEqual([
      expect.stringMatching(
        /^security_policy\[0\] \(ALL\)\.widevine: security_level 5, required_hdcp_version HDCP_V2_2: ClearKey has no security levels and no output protection/,
      ),
      expect.stringMatching(/^security_policy\[1\] \(AUDIO\)\.playready: security_level 3000: /),
      expect.stringMatching(
        /^playback_policy\.allowed_track_types SD_ONLY: .*every requested key is issued/,
      ),
      expect.stringMatching(/^key_rotation true: /),
    ]);
    expect(eventOf(res, 'license-issued')).toMatchObject({
      policy: { not_enforced: notEnforced },
    });
  });

  it('max_stream_per_user 0 is no limit: a third stream of the user is licensed', async () => {
    // The stream model's rule (streams.ts) and the DRMs' policies: 0 means no limit.
    const token = handMadeTokenV2(
      { policy_version: 2, playback_policy: { max_stream_per_user: 0 } },
      { userId: 'no-stream-limit' },
    );
    for (const stream of ['s-1', 's-2', 's-3']) {
      const res = await postLicense(emulator.url, token, undefined, { 'x-drm-stream-id': stream });
      expect(res.status).toBe(200);
      expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
    }
  });

  it('refuse a v2 policy that breaks the format with 6002, naming the member', async () => {
    const token = handMadeTokenV2({
      policy_version: 2,
      playback_policy: { max_stream_per_user: -1 },
    });
    const refusal = refusalOf(await postLicense(emulator.url, token));
    expect(refusal).toMatchObject({
      errorCode: '6002',
      reason: 'INVALID_POLICY',
      field: 'policy.playback_policy.max_stream_per_user',
    });
  });

  it('refuse a token with both token and policy members with 7013', async () => {
    const json = JSON.parse(
      Buffer.from(handMadeTokenV2({ policy_version: 2 }), 'base64').toString(),
    ) as Record<string, unknown>;
    const both = Buffer.from(JSON.stringify({ ...json, token: json['policy'] })).toString('base64');
    expect(refusalOf(await postLicense(emulator.url, both)).errorCode).toBe('7013');
  });
});

describe('v2 tokens of the vectors (built by the service samples)', () => {
  it('persistent rental with an external mpeg_cenc key: the vector key, persistent-license, security reported', async () => {
    const v = vector('playready, persistent rental');
    const policy = JSON.parse(v.policy_plaintext) as {
      external_key: { mpeg_cenc: { key_id: string; key: string }[] };
    };
    const [cenc] = policy.external_key.mpeg_cenc;
    const res = await postLicense(atVectorTime.url, v.token, clearKeyRequest(cenc?.key_id ?? ''));
    expect(res.body).toEqual({
      keys: [{ kty: 'oct', kid: b64url(cenc?.key_id ?? ''), k: b64url(cenc?.key ?? '') }],
      type: 'persistent-license',
    });
    expect(policyOf(res)).toMatchObject({
      persistent: true,
      rental_duration: 86_400,
      playback_duration: 7200,
      not_enforced: [
        expect.stringMatching(/^security_policy\[0\] \(ALL\)\.widevine: security_level 1/),
        expect.stringMatching(/^security_policy\[0\] \(ALL\)\.playready: security_level 2000/),
      ],
    });
    expect(eventOf(res, 'token-checked')).toMatchObject({
      ok: true,
      version: 2,
      siteId: 'TUTO',
      drmType: 'PlayReady',
      cid: 'content-2',
    });
  });

  it('hls_aes keys only: the configured key of the cid, hls_aes and track types reported', async () => {
    const v = vector('fairplay, expire_date');
    const res = await postLicense(atVectorTime.url, v.token, clearKeyRequest(OTHER_KID));
    expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(OTHER_KID), k: b64url(KEY) }]);
    const policy = policyOf(res);
    expect(policy).toMatchObject({
      expire_date: '2024-02-01T12:00:00Z',
      max_stream_per_user: 2,
      allowed_track_types: 'SD_HD',
    });
    expect(policy['not_enforced']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^security_policy\[0\] \(ALL\)\.fairplay: hdcp_enforcement 0/),
        expect.stringMatching(/^playback_policy\.allowed_track_types SD_HD/),
        'external_key.hls_aes: not used, ClearKey takes only mpeg_cenc keys',
      ]),
    );
  });

  it('every layout other builders emit for the same token is served alike', async () => {
    const v = vector('widevine, streaming');
    const layouts = [v.token, ...(v.other_layouts ?? []).map((l) => l.token)];
    expect(layouts.length).toBeGreaterThan(1);
    for (const token of layouts) {
      const res = await postLicense(atVectorTime.url, token);
      expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
      expect(policyOf(res)).toMatchObject({ persistent: false, license_duration: 3600 });
    }
  });

  it('the same vector token is refused as expired (7011) 600 s after its timestamp', async () => {
    const v = vector('widevine, streaming');
    const late = await startEmulator(
      { sites: [VECTOR_SITE], keys: { bigbuckbunny: { kid: KID, key: KEY } } },
      { now: () => (parseTimestamp(vectors.common.timestamp) as number) + 601_000 },
    );
    try {
      expect(refusalOf(await postLicense(late.url, v.token))).toMatchObject({
        errorCode: '7011',
        message: 'Token expired',
      });
    } finally {
      await late.close();
    }
  });
});
