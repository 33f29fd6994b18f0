import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/index.ts';
import { KEY, KID, TOKEN_SITE } from './helpers.ts';

describe('parseConfig', () => {
  it('fills in the documented defaults', () => {
    const config = parseConfig({ sites: [TOKEN_SITE] });
    expect(config).toMatchObject({
      dialect: 'service',
      errorCodes: {},
      tokenValiditySeconds: 600,
      clockSkewSeconds: 5,
      streamGraceSeconds: 30,
      renewalIntervalSeconds: 60,
      hashEncoding: 'hex-text',
      customDataHeader: 'x-drm-custom-data',
      gatewayTimeoutMs: 5000,
      keys: {},
    });
    expect(config.sites[0]?.gatewayFormat).toBe('json');
    expect(config.allowedOrigins).toBeUndefined();
  });

  it('takes one key or several per cid, and lowercases hex', () => {
    const config = parseConfig({
      sites: [TOKEN_SITE],
      keys: {
        a: { kid: KID.toUpperCase(), key: KEY },
        b: [
          { kid: KID, key: KEY },
          { kid: KEY, key: KID },
        ],
      },
    });
    expect(config.keys['a']).toEqual([{ kid: KID, key: KEY }]);
    expect(config.keys['b']).toHaveLength(2);
  });

  it('is idempotent, so a parsed config can be passed again', () => {
    const once = parseConfig({ sites: [TOKEN_SITE], keys: { a: { kid: KID, key: KEY } } });
    expect(parseConfig(once)).toEqual(once);
  });

  it.each([
    [{}, 'config.sites: is required'],
    [{ sites: {} }, 'config.sites: must be an array of sites'],
    [{ sites: [] }, 'config.sites: must name at least one site'],
    [
      { sites: [{ ...TOKEN_SITE, siteKey: 'x'.repeat(31) }] },
      'config.sites.0.siteKey: must be exactly 32 bytes',
    ],
    [
      { sites: [{ ...TOKEN_SITE, gatewayUrl: 'ftp://x' }] },
      'config.sites.0.gatewayUrl: must be an http:// or https:// URL',
    ],
    [
      { sites: [{ ...TOKEN_SITE, gatewayFormat: 'yaml' }] },
      'config.sites.0.gatewayFormat: must be "json" or "xml"',
    ],
    [
      { sites: [TOKEN_SITE, TOKEN_SITE] },
      `config.sites.1.siteId: "${TOKEN_SITE.siteId}" is configured twice`,
    ],
    [
      { sites: [TOKEN_SITE], hashEncoding: 'hex' },
      'config.hashEncoding: must be "hex-text" or "raw-digest"',
    ],
    [
      { sites: [TOKEN_SITE], customDataHeader: 'bad header' },
      'config.customDataHeader: must be a valid HTTP header name',
    ],
    [
      { sites: [TOKEN_SITE], allowedOrigins: ['http://a.test/path'] },
      'config.allowedOrigins.0: must be "*" or an origin',
    ],
    [
      { sites: [TOKEN_SITE], tokenValiditySeconds: -1 },
      'config.tokenValiditySeconds: must not be negative',
    ],
    [{ sites: [TOKEN_SITE], dialect: 'pallas' }, 'config.dialect: must be "service" or "explain"'],
    [
      { sites: [TOKEN_SITE], errorCodes: { TOKEN_EXPIRED: 7011 } },
      'config.errorCodes.TOKEN_EXPIRED: must be a string of digits',
    ],
    [
      { sites: [TOKEN_SITE], errorCodes: { TOKEN_EXPIRED: '70a1' } },
      'config.errorCodes.TOKEN_EXPIRED: must be a string of 1 to 9 digits',
    ],
    [
      { sites: [TOKEN_SITE], errorCodes: { NOT_FOUND: '404' } },
      'config.errorCodes: unknown member "NOT_FOUND"',
    ],
    [
      { sites: [TOKEN_SITE], renewalIntervalSeconds: 0 },
      'config.renewalIntervalSeconds: must be more than 0',
    ],
  ])('refuses a bad config naming the field (%#)', (input, says) => {
    expect(() => parseConfig(input)).toThrow(ConfigError);
    expect(() => parseConfig(input)).toThrow(says);
  });

  it('never echoes a key in its errors', () => {
    const secret = 'this-site-key-is-too-short';
    try {
      parseConfig({ sites: [{ ...TOKEN_SITE, siteKey: secret }] });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).message).not.toContain(secret);
      expect((error as ConfigError).issues).toHaveLength(1);
    }
  });
});
