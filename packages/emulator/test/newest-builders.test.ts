// Tokens laid out as the service's newest builders write them (test/support/builder-layouts.ts,
// reproduced from the v2 addendum): the emulator serves them instead of refusing with 6002 or 7018.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import { builderToken } from '../../../test/support/builder-layouts.ts';
import { b64url, CID, clearKeyRequest, KEY, KID, postLicense, TOKEN_SITE } from './helpers.ts';

let emulator: RunningEmulator;
const seen: FlowEvent[] = [];
const now = Date.UTC(2026, 2, 1, 12, 0, 0);
const TS = '2026-03-01T12:00:00Z';

beforeAll(async () => {
  emulator = await startEmulator(
    { sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } },
    { now: () => now },
  );
  emulator.events.on((e) => seen.push(e));
});
afterAll(() => emulator.close());

const warningsOf = () =>
  (seen.findLast((e) => e.type === 'token-checked') as { warnings?: string[] }).warnings ?? [];

describe('the newest builders: the emulator issues the license', () => {
  it('a PHP-layout token: empty hls_aes beside the key list, zero rental/playback defaults', async () => {
    const { token } = builderToken(
      TOKEN_SITE,
      {
        drmType: 'Widevine',
        userId: 'u',
        cid: CID,
        timestamp: TS,
        policy: {
          policy_version: 2,
          external_key: { mpeg_cenc: [{ track_type: 'ALL', key_id: KID, key: KEY }] },
        },
      },
      'escaped',
    );
    const res = await postLicense(emulator.url, token, clearKeyRequest(KID));
    expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
    expect(warningsOf()).toContain(
      'policy.external_key.hls_aes: an empty list, read as absent (one builder writes it)',
    );
  });

  it.each(['Wiseplay', 'widevine', 'PLAYREADY'])(
    'a token with drm_type "%s" (any case) is served, not refused with 7018',
    async (drmType) => {
      const { token } = builderToken(
        TOKEN_SITE,
        { drmType, userId: 'u', cid: CID, timestamp: TS, policy: { policy_version: 2 } },
        'spaced',
      );
      const res = await postLicense(emulator.url, token, clearKeyRequest(KID));
      expect(res.body['keys']).toHaveLength(1);
    },
  );

  it('a token with upper-case hex keys is served, the warning names the member', async () => {
    const { token } = builderToken(
      TOKEN_SITE,
      {
        drmType: 'PlayReady',
        userId: 'u',
        cid: 'elsewhere',
        timestamp: TS,
        policy: {
          policy_version: 2,
          external_key: {
            mpeg_cenc: [{ track_type: 'ALL', key_id: KID.toUpperCase(), key: KEY.toUpperCase() }],
          },
        },
      },
      'escaped',
    );
    const res = await postLicense(emulator.url, token, clearKeyRequest(KID));
    expect(res.body['keys']).toEqual([{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }]);
    expect(warningsOf()).toContain(
      'policy.external_key.mpeg_cenc.0.key_id: upper-case hex, read as lower case (writers write lower case)',
    );
  });
});
