// The members the spec marks required, each left out on its own: the reader refuses naming it.
import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  decodeGatewayRequest,
  encrypt,
  readLicenseToken,
  TokenError,
  verifyLicenseToken,
} from '../../src/index.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

const TS = '2026-03-01T12:00:00Z';
const issuer = createTokenIssuer(TUTO);
const json = (token: string) =>
  JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<string, unknown>;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const tokens = {
  v1: issuer.issue({ cid: 'movie', timestamp: TS }),
  v2: issuer.issue({ cid: 'movie', policy: { policy_version: 2 }, timestamp: TS }),
};

describe('required token members', () => {
  it.each(
    (['v1', 'v2'] as const).flatMap((version) =>
      ['site_id', 'user_id', 'cid', 'timestamp', 'hash'].map((member) => [version, member]),
    ),
  )('a %s token without %s is INVALID_FIELD naming it', (version, member) => {
    const { [member]: _left, ...rest } = json(tokens[version as 'v1' | 'v2']);
    const error = failure(() => readLicenseToken(b64(rest)));
    expect(error).toBeInstanceOf(TokenError);
    expect(error.code).toBe('INVALID_FIELD');
    expect((error as TokenError).field).toBe(member);
    expect(error.message).toContain(`${member}: is required`);
  });

  it('a v2 token without response_format and key_rotation reads as original and false', () => {
    const { response_format: _f, key_rotation: _k, ...rest } = json(tokens.v2);
    const verified = verifyLicenseToken(b64(rest), {
      siteKey: TUTO.siteKey,
      accessKey: TUTO.accessKey,
      now: Date.parse(TS),
    });
    if (verified.version !== 2) throw new Error('expected v2');
    expect([verified.responseFormat, verified.keyRotation]).toEqual(['original', false]);
  });
});

describe('required members of the gateway request', () => {
  const KEY = TUTO.siteKey;
  const full = { user_id: 'u', cid: 'c', nonce: 'n', drm_type: 'Widevine' };

  it.each(['user_id', 'cid', 'nonce', 'drm_type'])(
    'a JSON request without %s is INVALID_GATEWAY_REQUEST naming it',
    (member) => {
      const { [member as keyof typeof full]: _left, ...rest } = full;
      const error = failure(() => decodeGatewayRequest(encrypt(JSON.stringify(rest), KEY), KEY));
      expect(error.code).toBe('INVALID_GATEWAY_REQUEST');
      expect(error.message).toContain(`request.${member}: is required`);
    },
  );
});
