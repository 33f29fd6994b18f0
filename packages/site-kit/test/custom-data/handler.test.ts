import { describe, expect, it } from 'vitest';
import { createCustomDataHandler, parseCustomData } from '../../src/index.ts';

const siteKey = 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC';

describe('custom data handler', () => {
  const handler = createCustomDataHandler({
    siteId: 'TUTO',
    siteKey,
    authorize: (request, asked) =>
      request.headers.get('cookie') === 'session=ok'
        ? { allow: true, userId: 'user-7', oid: `order-for-${asked.cid}` }
        : { allow: false, status: 401, reason: 'Sign in first.' },
  });
  const post = (body: unknown, cookie?: string) =>
    handler(
      new Request('http://site.test/custom-data', {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      }),
    );

  it('answers the custom data the license service will read with the site key', async () => {
    const response = await post({ cid: 'movie-1', drm_type: 'PlayReady' }, 'session=ok');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(parseCustomData(await response.text(), { siteKey })).toEqual({
      drm_type: 'PlayReady',
      site_id: 'TUTO',
      user_id: 'user-7',
      cid: 'movie-1',
      oid: 'order-for-movie-1',
    });
  });

  it('answers the refusal and bad requests like the token endpoint', async () => {
    const refused = await post({ cid: 'movie-1', drm_type: 'PlayReady' });
    expect([refused.status, await refused.text()]).toEqual([401, 'Sign in first.']);
    const bad = await post({ cid: 'movie-1', drm_type: 'Marlin' }, 'session=ok');
    expect(bad.status).toBe(400);
  });

  it('checks the site ID when created', () => {
    expect(() =>
      createCustomDataHandler({
        siteId: '',
        siteKey,
        authorize: () => ({ allow: true, userId: 'u' }),
      }),
    ).toThrow(/siteId/);
  });
});
