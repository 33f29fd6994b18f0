import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodeGatewayResponse,
  encodeGatewayRequest,
  parseCustomData,
  toNodeListener,
  verifyLicenseToken,
} from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from './site.ts';

const site = {
  siteId: 'EXAMPLE',
  siteKey: 'example-site-key-0123456789abcde',
  accessKey: 'example-access',
};
const events: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(
    toNodeListener(
      createExampleSite({
        ...site,
        playerOrigins: ['http://player.test'],
        onEvent: (source, e) => events.push(`${source}:${e.type}`),
      }),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ask = (path: string, cid: string, user?: string) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { cookie: `user=${user}` } : {}) },
    body: JSON.stringify({ cid, drm_type: 'Widevine' }),
  });

describe('example site', () => {
  it('issues tokens by entitlement: free titles to all, others to members', async () => {
    const free = await ask('/token', 'free-1');
    expect(verifyLicenseToken(await free.text(), site)).toMatchObject({
      cid: 'free-1',
      userId: 'LICENSETOKEN',
    });
    const member = await ask('/token', 'film-1', 'member-ann');
    expect(verifyLicenseToken(await member.text(), site).userId).toBe('member-ann');
    expect((await ask('/token', 'film-1')).status).toBe(401);
    expect((await ask('/token', 'film-1', 'guest-bob')).status).toBe(403);
  });

  it('hands out custom data whose user the gateway then authorizes', async () => {
    const response = await ask('/custom-data', 'film-2', 'member-ann');
    const custom = parseCustomData(await response.text(), site);
    expect(custom).toMatchObject({ site_id: 'EXAMPLE', user_id: 'member-ann', cid: 'film-2' });
    for (const [user, code] of [
      [custom.user_id, '0000'],
      ['guest-bob', '4031'],
    ] as const) {
      const body = encodeGatewayRequest(
        {
          format: 'json',
          user_id: user,
          cid: custom.cid,
          nonce: `n-${user}`,
          drm_type: custom.drm_type,
        },
        site.siteKey,
      );
      const answer = await fetch(`${base}/gateway`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(decodeGatewayResponse(await answer.text(), 'json', site.siteKey)).toMatchObject({
        error_code: code,
        nonce: `n-${user}`,
      });
    }
    expect(events).toContain('gateway:decision');
  });

  it('answers CORS preflights for its player origin and 404 elsewhere', async () => {
    const preflight = await fetch(`${base}/token`, {
      method: 'OPTIONS',
      headers: { origin: 'http://player.test' },
    });
    expect(preflight.status).toBe(204);
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });
});
