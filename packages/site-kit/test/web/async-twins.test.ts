import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as node from '../../src/index.ts';
import * as web from '../../src/web/index.ts';
import { vectors } from '../../../../test/support/vectors.ts';
import { vectorsV2 } from '../../../../test/support/vectors-v2.ts';
import { gatewayVector } from '../../../../test/support/vectors.ts';

// The async API, on node:crypto (the root entry's twins) and on Web Crypto (what the workerd,
// edge-light and browser conditions load), against the vectors and the synchronous API.
const twins = [
  ['on node:crypto', node],
  ['on Web Crypto', web],
] as const;

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof node.SiteKitError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a SiteKitError');
}

function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (error instanceof node.SiteKitError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a SiteKitError');
}

describe.each(twins)('the async API %s', (_name, api) => {
  it('encrypts and decrypts every AES and gateway vector byte for byte', async () => {
    for (const v of [...vectors.aes, ...vectors.gateway]) {
      const key = 'key' in v ? v.key : v.site_key;
      expect(await api.encryptAsync(v.plaintext, key)).toBe(v.ciphertext);
      expect(await api.decryptAsync(v.ciphertext, key)).toBe(v.plaintext);
    }
  });

  it('encrypts any text as the synchronous encrypt does, and decrypts it back', async () => {
    const key = randomBytes(32);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), async (text) => {
        const ciphertext = await api.encryptAsync(text, key);
        expect(ciphertext).toBe(node.encrypt(text, key));
        expect(await api.decryptAsync(ciphertext, key)).toBe(text);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses any damaged ciphertext with the error the synchronous decrypt gives', async () => {
    const key = randomBytes(32);
    const bytes = fc
      .integer({ min: 0, max: 4 })
      .chain((blocks) => fc.uint8Array({ minLength: blocks * 16, maxLength: blocks * 16 + 3 }));
    await fc.assert(
      fc.asyncProperty(bytes, async (raw) => {
        const ciphertext = Buffer.from(raw).toString('base64');
        let expected: { code: string; message: string } | string;
        try {
          expected = node.decrypt(ciphertext, key);
        } catch (error) {
          expected = { code: (error as node.SiteKitError).code, message: (error as Error).message };
        }
        if (typeof expected === 'string') {
          expect(await api.decryptAsync(ciphertext, key)).toBe(expected);
        } else {
          expect(await rejection(api.decryptAsync(ciphertext, key))).toEqual(expected);
        }
      }),
      { numRuns: 150 },
    );
    for (const bad of ['not base64!', 'MManHcZraU/jcWYK/cQRgw']) {
      expect(await rejection(api.decryptAsync(bad, key))).toEqual(
        thrown(() => node.decrypt(bad, key)),
      );
    }
    expect(await rejection(api.encryptAsync('x', 'short'))).toEqual(
      thrown(() => node.encrypt('x', 'short')),
    );
  });

  it('reproduces every v1 token vector with both hash readings, and verifies it', async () => {
    for (const v of vectors.token) {
      const site = { siteId: v.site_id, siteKey: v.site_key, accessKey: v.access_key };
      for (const [hashEncoding, expected] of [
        ['hex-text', v.expected.token],
        ['raw-digest', v.expected.token_raw_digest],
      ] as const) {
        const issuer = api.createTokenIssuerAsync({ ...site, hashEncoding });
        const issue = {
          cid: v.cid,
          userId: v.user_id,
          drmType: v.drm_type,
          policy: JSON.parse(v.token_data) as node.TokenPolicy,
          timestamp: v.timestamp,
        };
        expect(await issuer.issue(issue)).toBe(expected);
        const prepared = await issuer.preparePolicy(issue.policy);
        expect(await issuer.issue({ ...issue, policy: prepared })).toBe(expected);
        const options = {
          siteKey: v.site_key,
          accessKey: v.access_key,
          hashEncoding,
          now: Date.parse(v.timestamp),
        };
        expect(await api.verifyLicenseTokenAsync(expected, options)).toEqual(
          node.verifyLicenseToken(expected, options),
        );
      }
    }
  });

  it('reproduces every v2 token vector, and verifies it', async () => {
    const { common } = vectorsV2;
    const issuer = api.createTokenIssuerAsync({
      siteId: common.site_id,
      siteKey: common.site_key,
      accessKey: common.access_key,
    });
    const verifier = api.createTokenVerifierAsync({
      siteKey: common.site_key,
      accessKey: common.access_key,
    });
    for (const v of vectorsV2.vectors) {
      const policy = JSON.parse(v.policy_plaintext) as node.TokenPolicyV2Input;
      const token = await issuer.issue({
        cid: v.cid,
        userId: v.user_id,
        drmType: v.drm_type,
        policy,
        timestamp: common.timestamp,
      });
      expect(token).toBe(v.token);
      const now = Date.parse(common.timestamp);
      expect(await verifier.verify(v.token, { now })).toEqual(
        node.verifyLicenseToken(v.token, {
          siteKey: common.site_key,
          accessKey: common.access_key,
          now,
        }),
      );
    }
  });

  it("refuses tokens with the synchronous verifier's codes and sentences", async () => {
    const v = vectors.token[0]!;
    const options = { siteKey: v.site_key, accessKey: v.access_key };
    const cases: [string, number][] = [
      [v.expected.token, Date.parse(v.timestamp) + 3_600_000],
      [v.expected.token_raw_digest, Date.parse(v.timestamp)],
      ['e30=', Date.parse(v.timestamp)],
      ['not a token', Date.parse(v.timestamp)],
    ];
    for (const [token, now] of cases) {
      expect(await rejection(api.verifyLicenseTokenAsync(token, { ...options, now }))).toEqual(
        thrown(() => node.verifyLicenseToken(token, { ...options, now })),
      );
    }
    const wrongKey = { ...options, siteKey: 'b'.repeat(32), now: Date.parse(v.timestamp) };
    expect(await rejection(api.verifyLicenseTokenAsync(v.expected.token, wrongKey))).toMatchObject({
      code: 'DECRYPT_FAILED',
    });
  });

  it('encodes and decodes the gateway vectors byte for byte', async () => {
    const jsonRequest = gatewayVector('json', 'request');
    const request = node.decodeGatewayRequest(jsonRequest.form_body, jsonRequest.site_key);
    expect(await api.encodeGatewayRequestAsync(request, jsonRequest.site_key)).toBe(
      jsonRequest.form_body,
    );
    expect(
      await api.decodeGatewayRequestAsync(jsonRequest.form_body, jsonRequest.site_key),
    ).toEqual(request);
    const xmlRequest = gatewayVector('xml', 'request');
    expect(await api.decodeGatewayRequestAsync(xmlRequest.form_body, xmlRequest.site_key)).toEqual(
      node.decodeGatewayRequest(xmlRequest.form_body, xmlRequest.site_key),
    );
    for (const format of ['json', 'xml'] as const) {
      const v = gatewayVector(format, 'response');
      const answer = node.decodeGatewayResponse(v.ciphertext, format, v.site_key);
      expect(await api.decodeGatewayResponseAsync(v.ciphertext, format, v.site_key)).toEqual(
        answer,
      );
      expect(await api.encodeGatewayAnswerAsync(answer, v.site_key)).toBe(v.ciphertext);
    }
    const damaged = `data=${encodeURIComponent(node.encrypt('{"user_id": nope', jsonRequest.site_key))}`;
    expect(await rejection(api.decodeGatewayRequestAsync(damaged, jsonRequest.site_key))).toEqual(
      thrown(() => node.decodeGatewayRequest(damaged, jsonRequest.site_key)),
    );
  });

  it('makes and reads gateway-mode custom data as the synchronous functions do', async () => {
    const options = {
      siteId: 'TUTO',
      siteKey: 'a'.repeat(32),
      drmType: 'Widevine' as const,
      userId: 'user-1',
      cid: 'movie',
      oid: 'order-7',
    };
    const data = await api.createCustomDataAsync(options);
    expect(data).toBe(node.createCustomData(options));
    expect(await api.parseCustomDataAsync(data, { siteKey: options.siteKey })).toEqual(
      node.parseCustomData(data, { siteKey: options.siteKey }),
    );
    expect(
      await rejection(api.parseCustomDataAsync(data, { siteKey: 'b'.repeat(32) })),
    ).toMatchObject({
      code: expect.stringMatching(/DECRYPT_FAILED|INVALID_CUSTOM_DATA/),
    });
  });
});
