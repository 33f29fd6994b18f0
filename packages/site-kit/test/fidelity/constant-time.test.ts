import { afterEach, describe, expect, it, vi } from 'vitest';

// The real node:crypto, with timingSafeEqual watched: replacing it by Buffer.equals (a mutant an
// outside review found alive) must fail a site-kit test, not only a cross-package one.
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return { ...real, timingSafeEqual: vi.fn(real.timingSafeEqual) };
});

const { timingSafeEqual } = await import('node:crypto');
const { createLicenseToken, createGatewayHandler, encrypt, verifyLicenseToken } =
  await import('../../src/index.ts');
const { TUTO } = await import('../support/site.ts');

const TS = '2026-03-01T12:00:00Z';
const keys = { siteKey: TUTO.siteKey, accessKey: TUTO.accessKey, now: Date.parse(TS) };

afterEach(() => vi.mocked(timingSafeEqual).mockClear());

describe('constant-time comparisons and paths', () => {
  it('the token hash is compared with timingSafeEqual, for v1 and v2 tokens', () => {
    verifyLicenseToken(createLicenseToken({ ...TUTO, cid: 'm', timestamp: TS }), keys);
    expect(timingSafeEqual).toHaveBeenCalledTimes(1);
    verifyLicenseToken(
      createLicenseToken({ ...TUTO, cid: 'm', timestamp: TS, policy: { policy_version: 2 } }),
      keys,
    );
    expect(timingSafeEqual).toHaveBeenCalledTimes(2);
  });

  it("a v1 token without drm_type is hashed as PlayReady, the spec's default", () => {
    const token = createLicenseToken({ ...TUTO, cid: 'm', drmType: 'PlayReady', timestamp: TS });
    const { drm_type: _absent, ...fields } = JSON.parse(
      Buffer.from(token, 'base64').toString('utf8'),
    );
    const result = verifyLicenseToken(Buffer.from(JSON.stringify(fields)).toString('base64'), keys);
    expect(result.drmType).toBe('PlayReady');
    const asWidevine = createLicenseToken({
      ...TUTO,
      cid: 'm',
      drmType: 'Widevine',
      timestamp: TS,
    });
    const { drm_type: _w, ...other } = JSON.parse(
      Buffer.from(asWidevine, 'base64').toString('utf8'),
    );
    expect(() =>
      verifyLicenseToken(Buffer.from(JSON.stringify(other)).toString('base64'), keys),
    ).toThrow(/hash/);
  });

  it('the gateway reads a bad padding and a bad plaintext along the same path, to the same answer', async () => {
    const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const handler = createGatewayHandler({
      siteKey: KEY,
      authorize: () => ({ allow: false, error_code: '1', error_message: 'x' }),
    });
    const badJson = encrypt('{"user_id": not json', KEY);
    // Same length, last block changed: the padding check fails.
    const bytes = Buffer.from(badJson, 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x55;
    const badPadding = bytes.toString('base64');

    const parse = vi.spyOn(JSON, 'parse');
    const answer = async (data: string) => {
      parse.mockClear();
      const response = await handler(
        new Request('http://site.test/gw', {
          method: 'POST',
          body: `data=${encodeURIComponent(data)}`,
        }),
      );
      return {
        status: response.status,
        body: await response.text(),
        parses: parse.mock.calls.length,
      };
    };
    await answer(badJson); // the first Request parses something of its own once
    const a = await answer(badJson);
    const b = await answer(badPadding);
    parse.mockRestore();
    expect(a.status).toBe(400);
    expect(b).toEqual(a);
    expect(a.parses).toBe(1);
  });
});
