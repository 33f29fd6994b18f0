import { describe, expect, it } from 'vitest';
import * as node from '../../src/index.ts';
import * as web from '../../src/web/index.ts';

// Edges of what the kit reads and writes: v2-only token options on a v1 token, custom data with
// whitespace around it, a gateway answer whose plaintext starts with a byte order mark.

const siteKey = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const site = { siteId: 'MUTANTS', siteKey, accessKey: 'access' };

function failureOf(run: () => unknown): node.SiteKitError {
  try {
    run();
  } catch (error) {
    if (error instanceof node.SiteKitError) return error;
    throw error;
  }
  throw new Error('expected a SiteKitError');
}

describe('v2-only options on a v1 token', () => {
  const issuer = node.createTokenIssuer(site);
  it.each([{ keyRotation: true }, { keyRotation: false }, { responseFormat: 'original' as const }])(
    'are refused, not left out in silence (%j)',
    (extra) => {
      const error = failureOf(() => issuer.issue({ cid: 'movie', ...extra }));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toMatch(/exist only in v2 tokens/);
    },
  );
});

describe('custom data with whitespace around it', () => {
  const made = node.createCustomData({
    siteId: site.siteId,
    siteKey,
    drmType: 'Widevine',
    userId: 'u',
    cid: 'movie',
  });
  it.each([`${made}\n`, `  ${made}`, `\t${made}\r\n`])(
    'parses as the same custom data (%j)',
    (sent) => {
      expect(node.parseCustomData(sent, { siteKey })).toEqual(
        node.parseCustomData(made, { siteKey }),
      );
    },
  );
});

describe('a gateway answer with a byte order mark before its text', () => {
  const answers: node.GatewayAnswer[] = [
    {
      format: 'json',
      error_code: '0000',
      error_message: '',
      nonce: '00112233445566778899aabbccddeeff',
      playback_policy: { limit: false, persistent: false },
    },
    {
      format: 'xml',
      ERROR: '0000',
      ERRMSG: '',
      NONCE: '00112233445566778899aabbccddeeff',
      LIMIT: 'N',
    },
  ];
  it.each(answers)('is read like the same answer without it ($format)', async (answer) => {
    const text = node.decrypt(node.encodeGatewayAnswer(answer, siteKey), siteKey);
    const plain = node.decodeGatewayResponse(node.encrypt(text, siteKey), answer.format, siteKey);
    const withBom = node.encrypt(`\uFEFF${text}`, siteKey);
    expect(node.decodeGatewayResponse(withBom, answer.format, siteKey)).toEqual(plain);
    expect(await web.decodeGatewayResponseAsync(withBom, answer.format, siteKey)).toEqual(plain);
  });
});
