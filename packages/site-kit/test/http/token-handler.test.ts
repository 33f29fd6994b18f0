import { describe, expect, it } from 'vitest';
import {
  createTokenHandler,
  RENEWAL_INTERVAL_HEADER,
  SiteKitError,
  verifyLicenseToken,
  type SiteEndpointEvent,
  type TokenHandlerOptions,
} from '../../src/index.ts';

const site = {
  siteId: 'TUTO',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
const ORIGIN = 'https://player.test';

function setup(
  authorize: TokenHandlerOptions['authorize'],
  more: Partial<TokenHandlerOptions> = {},
) {
  const events: SiteEndpointEvent[] = [];
  const handler = createTokenHandler({
    ...site,
    authorize,
    onEvent: (e) => events.push(e),
    ...more,
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    handler(
      new Request('http://site.test/token', {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      }),
    );
  return { handler, post, events };
}

describe('token handler', () => {
  it('issues a v2 token when authorize returns a v2 policy, with its response format', async () => {
    const { post } = setup(() => ({
      allow: true,
      userId: 'u1',
      policy: { policy_version: 2, playback_policy: { persistent: false, license_duration: 600 } },
      responseFormat: 'json',
    }));
    const response = await post({ cid: 'movie-1', drm_type: 'Widevine' });
    expect(response.status).toBe(200);
    const token = verifyLicenseToken(await response.text(), site);
    expect(token).toMatchObject({
      version: 2,
      userId: 'u1',
      cid: 'movie-1',
      drmType: 'Widevine',
      responseFormat: 'json',
      keyRotation: false,
      policy: { policy_version: 2, playback_policy: { persistent: false, license_duration: 600 } },
    });
  });

  it('answers a token for the signed-in user, as text/plain that is never cached', async () => {
    let cookie: string | null = null;
    const { post } = setup((request, asked) => {
      cookie = request.headers.get('cookie');
      return {
        allow: true,
        userId: `user-of-${asked.cid}`,
        policy: { playback_policy: { limit: true, duration: 600 } },
      };
    });
    const response = await post({ cid: 'movie-1', drm_type: 'Widevine' }, { cookie: 'session=s1' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(cookie).toBe('session=s1');
    const token = verifyLicenseToken(await response.text(), site);
    expect(token).toMatchObject({
      siteId: 'TUTO',
      userId: 'user-of-movie-1',
      cid: 'movie-1',
      drmType: 'Widevine',
      policy: { playback_policy: { limit: true, duration: 600 } },
    });
  });

  it('uses "LICENSETOKEN" when the site names no user', async () => {
    const { post } = setup(() => ({ allow: true }));
    const response = await post({ cid: 'c', drm_type: 'FairPlay' });
    expect(verifyLicenseToken(await response.text(), site).userId).toBe('LICENSETOKEN');
  });

  it('answers the site refusal with its status and reason', async () => {
    const { post } = setup((request) =>
      request.headers.get('cookie')
        ? { allow: false, status: 403, reason: 'Your plan does not include this title.' }
        : { allow: false, status: 401, reason: 'Sign in first.' },
    );
    const anonymous = await post({ cid: 'c', drm_type: 'NCG' });
    expect([anonymous.status, await anonymous.text()]).toEqual([401, 'Sign in first.']);
    const member = await post({ cid: 'c', drm_type: 'NCG' }, { cookie: 's=1' });
    expect([member.status, await member.text()]).toEqual([
      403,
      'Your plan does not include this title.',
    ]);
  });

  it('answers 400 with a reason to bad JSON, an unknown drm_type and a missing cid', async () => {
    const { post } = setup(() => ({ allow: true }));
    const bad = await post('{cid:');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('The body must be JSON');
    const drm = await post({ cid: 'c', drm_type: 'ClearKey' });
    expect(drm.status).toBe(400);
    expect(await drm.text()).toContain('drm_type: must be one of');
    const cid = await post({ drm_type: 'NCG' });
    expect(await cid.text()).toContain('cid: is required');
  });

  it('answers 400 naming the rule when the site policy breaks one', async () => {
    const { post } = setup(() => ({
      allow: true,
      policy: { playback_policy: { limit: false, duration: 60 } },
    }));
    const response = await post({ cid: 'c', drm_type: 'NCG' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('policy.playback_policy.duration');
  });

  it('answers 500 without details when authorize throws or answers nonsense', async () => {
    for (const authorize of [
      () => {
        throw new Error('db password wrong');
      },
      () => ({ allow: 'maybe' }) as never,
    ]) {
      const { post, events } = setup(authorize);
      const response = await post({ cid: 'c', drm_type: 'NCG' });
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('The site could not decide; try again later.');
      expect(events.at(-1)).toMatchObject({ type: 'error', status: 500 });
    }
  });

  it('answers 405 to other methods and checks its credentials when created', async () => {
    const { handler } = setup(() => ({ allow: true }));
    expect((await handler(new Request('http://site.test/token'))).status).toBe(405);
    expect(() =>
      createTokenHandler({ ...site, siteKey: 'short', authorize: () => ({ allow: true }) }),
    ).toThrow(/site key/);
  });

  it('adds no CORS headers unless configured', async () => {
    const { handler, post } = setup(() => ({ allow: true }));
    const response = await post({ cid: 'c', drm_type: 'NCG' }, { origin: ORIGIN });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await handler(
      new Request('http://site.test/token', { method: 'OPTIONS', headers: { origin: ORIGIN } }),
    );
    expect(preflight.status).toBe(405);
  });

  it('answers CORS for configured origins only, allowing credentials and the custom data header', async () => {
    const { handler, post } = setup(() => ({ allow: true }), {
      cors: { origins: [ORIGIN], credentials: true },
    });
    const preflight = await handler(
      new Request('http://site.test/token', { method: 'OPTIONS', headers: { origin: ORIGIN } }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'content-type, x-drm-custom-data',
    );
    const response = await post({ cid: 'c', drm_type: 'NCG' }, { origin: ORIGIN });
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'x-drm-custom-data, x-renewal-interval',
    );
    const other = await post({ cid: 'c', drm_type: 'NCG' }, { origin: 'https://evil.test' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const otherPreflight = await handler(
      new Request('http://site.test/token', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.test' },
      }),
    );
    expect(otherPreflight.status).toBe(403);
    expect(() =>
      createTokenHandler({
        ...site,
        authorize: () => ({ allow: true }),
        cors: { origins: ['https://a.test/'] },
      }),
    ).toThrow(/cors.origins.0: must be an origin/);
  });

  describe('the renewal interval header', () => {
    const v2 = (playback: Record<string, unknown>) => () => ({
      allow: true as const,
      userId: 'u1',
      policy: { policy_version: 2 as const, playback_policy: playback },
    });
    const intervalOf = async (
      authorize: TokenHandlerOptions['authorize'],
      more: Partial<TokenHandlerOptions> = {},
    ) => {
      const response = await setup(authorize, more).post({ cid: 'c', drm_type: 'Widevine' });
      expect(response.status).toBe(200);
      return response.headers.get('x-renewal-interval');
    };

    it("answers x-renewal-interval with the v2 policy's renewal_duration, in whole seconds", async () => {
      expect(RENEWAL_INTERVAL_HEADER).toBe('x-renewal-interval');
      expect(await intervalOf(v2({ max_stream_per_user: 2, renewal_duration: 30 }))).toBe('30');
      // The newest builders take the duration as a string of digits: the header is the number.
      expect(await intervalOf(v2({ renewal_duration: '45' }))).toBe('45');
    });

    it('answers no interval when neither the policy nor the handler sets one', async () => {
      expect(await intervalOf(v2({ max_stream_per_user: 2 }))).toBeNull();
      expect(await intervalOf(() => ({ allow: true }))).toBeNull();
      const v1 = () => ({ allow: true as const, policy: { playback_policy: { limit: false } } });
      expect(await intervalOf(v1)).toBeNull();
    });

    it("takes the handler's renewalIntervalSeconds where the policy sets none; the policy's wins", async () => {
      const more = { renewalIntervalSeconds: 120 };
      expect(await intervalOf(() => ({ allow: true }), more)).toBe('120');
      expect(await intervalOf(v2({ max_stream_per_user: 1 }), more)).toBe('120');
      expect(await intervalOf(v2({ renewal_duration: 20 }), more)).toBe('20');
    });

    it('sends no interval with a refusal or a policy the issuer rejects', async () => {
      const refused = setup(() => ({ allow: false, status: 403, reason: 'No plan' }), {
        renewalIntervalSeconds: 60,
      });
      const refusal = await refused.post({ cid: 'c', drm_type: 'Widevine' });
      expect(refusal.status).toBe(403);
      expect(refusal.headers.get('x-renewal-interval')).toBeNull();
      const broken = setup(v2({ renewal_duration: -5 }));
      const rejected = await broken.post({ cid: 'c', drm_type: 'Widevine' });
      expect(rejected.status).toBe(400);
      expect(await rejected.text()).toMatch(/renewal_duration/);
      expect(rejected.headers.get('x-renewal-interval')).toBeNull();
    });

    it('lets a page on an allowed origin read it (CORS exposes it)', async () => {
      const { post } = setup(v2({ renewal_duration: 30 }), { cors: { origins: [ORIGIN] } });
      const response = await post({ cid: 'c', drm_type: 'Widevine' }, { origin: ORIGIN });
      expect(response.headers.get('x-renewal-interval')).toBe('30');
      expect(response.headers.get('access-control-expose-headers')?.split(/,\s*/)).toContain(
        'x-renewal-interval',
      );
      // CORS headers still come with it.
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    });

    it('refuses a renewalIntervalSeconds that is not a whole number of seconds, when made', () => {
      for (const bad of [0, -1, 1.5, '60', Number.NaN, 400 * 24 * 3600]) {
        let caught: unknown;
        try {
          createTokenHandler({
            ...site,
            authorize: () => ({ allow: true }),
            renewalIntervalSeconds: bad as number,
          });
        } catch (error) {
          caught = error;
        }
        expect(caught, String(bad)).toBeInstanceOf(SiteKitError);
        expect((caught as SiteKitError).code).toBe('INVALID_INPUT');
        expect((caught as SiteKitError).message).toBe(
          'renewalIntervalSeconds: must be a whole number of seconds from 1 to 31536000.',
        );
      }
    });
  });
});
