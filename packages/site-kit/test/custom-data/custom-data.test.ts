import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createCustomData,
  decrypt,
  encrypt,
  parseCustomData,
  readCustomDataEnvelope,
} from '../../src/index.ts';
import { failure } from '../support/failure.ts';

const siteKey = 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC';
const base = { siteId: 'TUTO', siteKey, drmType: 'Widevine' as const, userId: 'u-1', cid: 'movie' };

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('gateway-mode custom data', () => {
  it('is base64 of {"drm_type","site_id","data"} with data = the encrypted user JSON', () => {
    const value = createCustomData({ ...base, oid: 'order-7' });
    const envelope = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
    expect(Object.keys(envelope)).toEqual(['drm_type', 'site_id', 'data']);
    expect(envelope.drm_type).toBe('Widevine');
    expect(envelope.site_id).toBe('TUTO');
    expect(decrypt(envelope.data, siteKey)).toBe('{"user_id":"u-1","cid":"movie","oid":"order-7"}');
  });

  it('reads the envelope without keys, and everything with the site key', () => {
    const value = createCustomData(base);
    expect(readCustomDataEnvelope(value)).toMatchObject({ drm_type: 'Widevine', site_id: 'TUTO' });
    expect(parseCustomData(value, { siteKey })).toEqual({
      drm_type: 'Widevine',
      site_id: 'TUTO',
      user_id: 'u-1',
      cid: 'movie',
    });
  });

  it('round-trips any user, content and order ID', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.option(fc.string(), { nil: undefined }),
        (userId, cid, oid) => {
          const parsed = parseCustomData(createCustomData({ ...base, userId, cid, oid }), {
            siteKey,
          });
          expect(parsed.user_id).toBe(userId);
          expect(parsed.cid).toBe(cid);
          expect(parsed.oid).toBe(oid);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses values that are not the envelope, with INVALID_CUSTOM_DATA and a reason', () => {
    expect(failure(() => readCustomDataEnvelope('')).message).toContain('empty');
    expect(failure(() => readCustomDataEnvelope('not base64!')).message).toContain(
      'not standard base64',
    );
    expect(failure(() => readCustomDataEnvelope('aGVsbG8=')).message).toContain('not JSON');
    const noSite = failure(() =>
      readCustomDataEnvelope(b64json({ drm_type: 'NCG', data: 'AAAA' })),
    );
    expect(noSite.code).toBe('INVALID_CUSTOM_DATA');
    expect(noSite.message).toContain('custom_data.site_id: is required');
    const badDrm = failure(() =>
      readCustomDataEnvelope(b64json({ drm_type: 'Marlin', site_id: 'S', data: 'AAAA' })),
    );
    expect(badDrm.message).toContain('custom_data.drm_type: must be one of');
  });

  it('refuses inner data that is not the user JSON, and a wrong key', () => {
    const envelope = (plaintext: string) =>
      b64json({ drm_type: 'NCG', site_id: 'S', data: encrypt(plaintext, siteKey) });
    const noCid = failure(() => parseCustomData(envelope('{"user_id":"u"}'), { siteKey }));
    expect(noCid.code).toBe('INVALID_CUSTOM_DATA');
    expect(noCid.message).toContain('custom_data.data.cid: is required');
    expect(failure(() => parseCustomData(envelope('user=u'), { siteKey })).message).toContain(
      'not to JSON',
    );
    const wrongKey = failure(() =>
      parseCustomData(createCustomData(base), { siteKey: 'x'.repeat(32) }),
    );
    expect(['DECRYPT_FAILED', 'INVALID_CUSTOM_DATA']).toContain(wrongKey.code);
  });

  it('refuses bad options with INVALID_INPUT naming the option', () => {
    const error = failure(() => createCustomData({ ...base, cid: '' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('cid: must not be empty');
    expect(failure(() => createCustomData({ ...base, siteKey: 'short' })).code).toBe(
      'INVALID_SITE_KEY',
    );
  });
});
