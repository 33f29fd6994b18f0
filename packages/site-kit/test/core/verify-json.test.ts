import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  createTokenVerifier,
  createTokenVerifierAsync,
  TokenError,
  type AnyTokenPolicy,
  type VerifyCallOptions,
} from '../../src/index.ts';
import { TUTO } from '../support/site.ts';

// verify(token, { json }): a caller that has decoded the token's JSON hands it in, and the verifier
// reads it instead of decoding the token again. The result, or the refusal, is the same.

const TS = '2026-03-01T12:00:00Z';
const AT = Date.parse(TS);
const issuer = createTokenIssuer(TUTO);
const sync = createTokenVerifier(TUTO);
const async = createTokenVerifierAsync(TUTO);

const issue = (policy: AnyTokenPolicy, more: object = {}) =>
  issuer.issue({ cid: 'content-1', userId: 'user-1', timestamp: TS, policy, ...more });
const jsonOf = (token: string) =>
  JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<string, unknown>;

async function outcomes(token: string, options: VerifyCallOptions) {
  const settle = async (run: () => unknown) => {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      return { ok: false, code: error.code, message: error.message };
    }
  };
  return {
    sync: await settle(() => sync.verify(token, options)),
    async: await settle(() => async.verify(token, options)),
  };
}

const TOKENS = {
  'v1, empty policy': issue({}, { drmType: 'Widevine' }),
  'v1, playback policy': issue({ playback_policy: { limit: true, duration: 60 } }),
  'v2, playback policy': issue(
    { policy_version: 2, playback_policy: { persistent: false, license_duration: 3600 } },
    { responseFormat: 'json', keyRotation: true },
  ),
  'v2, security policy': issue({
    policy_version: 2,
    security_policy: [{ track_type: 'ALL', widevine: { security_level: 1 } }],
  }),
};

describe('verify with the token JSON handed in', () => {
  it.each(Object.entries(TOKENS))('%s: the same result as decoding the token', async (_, token) => {
    const plain = await outcomes(token, { now: AT });
    expect(plain.sync.ok).toBe(true);
    expect(plain.async).toStrictEqual(plain.sync);
    expect(await outcomes(token, { now: AT, json: jsonOf(token) })).toStrictEqual(plain);
    // The token string is not read at all when the JSON is handed in.
    expect(await outcomes('', { now: AT, json: jsonOf(token) })).toStrictEqual(plain);
  });

  it('refuses as decoding the token does: expired, changed member', async () => {
    const token = TOKENS['v2, playback policy'];
    const late = AT + 3_600_000;
    const expired = await outcomes(token, { now: late });
    expect(expired.sync).toMatchObject({ ok: false, code: 'TOKEN_EXPIRED' });
    expect(await outcomes(token, { now: late, json: jsonOf(token) })).toStrictEqual(expired);
    // A JSON that is not the token's verifies as itself: a changed member fails the hash.
    const changed = { ...jsonOf(token), cid: 'content-2' };
    const forged = await outcomes(token, { now: AT, json: changed });
    expect(forged.sync).toMatchObject({ ok: false, code: 'HASH_MISMATCH' });
    expect(forged.async).toStrictEqual(forged.sync);
  });

  it('a JSON that is not a plain object is MALFORMED_TOKEN', async () => {
    const token = TOKENS['v1, empty policy'];
    for (const json of [null, [], 'x', 1, new Date(0)]) {
      const result = await outcomes(token, { now: AT, json: json as never });
      expect(result.sync).toStrictEqual({
        ok: false,
        code: 'MALFORMED_TOKEN',
        message:
          'The token holds JSON that is not an object: a token is base64 of the token JSON object.',
      });
      expect(result.async).toStrictEqual(result.sync);
    }
  });
});
