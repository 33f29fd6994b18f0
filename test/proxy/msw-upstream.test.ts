import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { describe, expect, it } from 'vitest';
import { createLicenseProxy } from '@multidrm/site-kit';
import { SITE } from './support.ts';

// A site's own tests put msw in front of the service: the proxy's node transport, which keeps its
// connections itself rather than through node:http's Agent, must still be heard by it.
describe('msw in front of the node transport', () => {
  it("answers the proxy's calls, one after the other on the kept connection", async () => {
    const licenseUrl = 'https://license.example/ri/licenseManager.do';
    const bodies: number[][] = [];
    const mock = setupServer(
      http.post(licenseUrl, async ({ request }) => {
        bodies.push([...new Uint8Array(await request.arrayBuffer())]);
        return HttpResponse.arrayBuffer(new Uint8Array([bodies.length]).buffer, {
          headers: { 'content-type': 'application/octet-stream' },
        });
      }),
    );
    mock.listen({ onUnhandledFrame: 'error' });
    try {
      const proxy = createLicenseProxy({
        ...SITE,
        licenseUrl,
        authorize: () => ({ allow: true, userId: 'user-1' }),
      });
      const answers: number[][] = [];
      for (let i = 1; i <= 3; i++) {
        const response = await proxy(
          new Request('https://site.example/drm/license?drmType=widevine&cid=movie-1', {
            method: 'POST',
            body: new Uint8Array([i, i]),
          }),
        );
        expect(response.status).toBe(200);
        answers.push([...new Uint8Array(await response.arrayBuffer())]);
      }
      expect(bodies).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
      expect(answers).toEqual([[1], [2], [3]]);
    } finally {
      mock.close();
    }
  });
});
