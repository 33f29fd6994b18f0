import {
  createGatewayHandler,
  createTokenHandler,
  verifyLicenseToken,
  type GatewayDecision,
  type WebHandler,
} from '@multidrm/site-kit';
import { expect } from 'vitest';
import { gatewayVector as vector } from '../support/vectors.ts';

// The same site mounted in each framework: the gateway must answer the shared vectors byte for byte.

const site = {
  siteId: 'FRAME',
  siteKey: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  accessKey: 'frameworks-access-key',
};

export interface SiteHandlers {
  gateway: WebHandler;
  token: WebHandler;
}

/** The handlers a framework mounts at /gateway and /token. */
export function siteHandlers(): SiteHandlers {
  return {
    gateway: createGatewayHandler({
      siteKey: site.siteKey,
      maxBodyBytes: 4096,
      now: () => Date.UTC(2026, 0, 1),
      authorize: (request): GatewayDecision =>
        request.format === 'json'
          ? { allow: true, playback_policy: { limit: true, persistent: false, duration: 86400 } }
          : {
              allow: true,
              playback_policy: { limit: true, expire_date: '2026-02-01T00:00:00Z' },
              security_policy: { output_protect: { control_hdcp: 1 } },
            },
    }),
    token: createTokenHandler({
      ...site,
      authorize: (request, { cid }) =>
        request.headers.get('cookie') === 'user=alice'
          ? {
              allow: true,
              userId: 'alice',
              policy: { playback_policy: { limit: true, duration: 60 } },
            }
          : { allow: false, status: 401, reason: `Sign in to play ${cid}.` },
    }),
  };
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** Runs the checks against a server whose base URL serves /gateway and /token. */
export async function checkSite(base: string): Promise<void> {
  for (const format of ['json', 'xml'] as const) {
    const response = await fetch(`${base}/gateway`, {
      method: 'POST',
      headers: form,
      body: vector(format, 'request').form_body,
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(vector(format, 'response').ciphertext);
  }

  const unreadable = await fetch(`${base}/gateway`, {
    method: 'POST',
    headers: form,
    body: 'data=AAAA',
  });
  expect(unreadable.status).toBe(400);
  const tooLarge = await fetch(`${base}/gateway`, {
    method: 'POST',
    headers: form,
    body: 'x'.repeat(5000),
  });
  expect(tooLarge.status).toBe(413);
  expect((await fetch(`${base}/gateway`)).status).toBe(405);

  const token = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: 'user=alice' },
    body: JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' }),
  });
  expect(token.status).toBe(200);
  expect(token.headers.get('cache-control')).toBe('no-store');
  expect(verifyLicenseToken(await token.text(), site)).toMatchObject({
    userId: 'alice',
    cid: 'movie-1',
  });
  const anonymous = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' }),
  });
  expect([anonymous.status, await anonymous.text()]).toEqual([401, 'Sign in to play movie-1.']);
}
