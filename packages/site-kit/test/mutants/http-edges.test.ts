import { describe, expect, it } from 'vitest';
import * as node from '../../src/index.ts';
import { createTokenHandler, decodeGatewayResponse, SiteKitError } from '../../src/index.ts';
import { TUTO } from '../support/site.ts';

// Edges of the site endpoints' HTTP: the preflight's default cache time, a JSON body that starts
// with a byte order mark, a maxBodyBytes that would refuse everything, an older browser's
// same-origin request (Origin, no Sec-Fetch-Site) on a non-default port; and a gateway answer body
// with a trailing newline.

const BODY = JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' });
const allow = () => ({ allow: true as const, userId: 'u1' });

describe('the token endpoint', () => {
  it('lets a preflight be cached 600 s unless maxAgeSeconds says otherwise', async () => {
    const origin = 'https://player.test';
    const handler = createTokenHandler({ ...TUTO, authorize: allow, cors: { origins: [origin] } });
    const response = await handler(
      new Request('http://site.test/token', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  it('reads a JSON body that starts with a byte order mark', async () => {
    const handler = createTokenHandler({ ...TUTO, authorize: allow });
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(BODY)]);
    const response = await handler(
      new Request('http://site.test/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    );
    expect(response.status).toBe(200);
    const token = node.decodeLicenseToken(await response.text());
    expect(token.cid).toBe('movie-1');
  });

  it('refuses maxBodyBytes 0 when it is made', () => {
    let error: unknown;
    try {
      createTokenHandler({ ...TUTO, authorize: allow, maxBodyBytes: 0 });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SiteKitError);
    expect((error as SiteKitError).message).toMatch(
      /maxBodyBytes: must be a positive whole number/,
    );
  });

  it('answers a same-origin request on another port, and refuses another port as cross-origin', async () => {
    const handler = createTokenHandler({ ...TUTO, authorize: allow });
    const post = (origin: string) =>
      handler(
        new Request('http://site.test:8080/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body: BODY,
        }),
      );
    expect((await post('http://site.test:8080')).status).toBe(200);
    expect((await post('http://site.test:9090')).status).toBe(403);
  });
});

describe('a gateway answer body', () => {
  it('is read the same with a trailing newline or spaces around it', () => {
    const answer: node.GatewayAnswer = {
      format: 'json',
      error_code: '0000',
      error_message: '',
      nonce: '00112233445566778899aabbccddeeff',
      playback_policy: { limit: false, persistent: false },
    };
    const body = node.encodeGatewayAnswer(answer, TUTO.siteKey);
    const read = decodeGatewayResponse(body, 'json', TUTO.siteKey);
    for (const sent of [`${body}\n`, `  ${body}\r\n`]) {
      expect(decodeGatewayResponse(sent, 'json', TUTO.siteKey)).toEqual(read);
    }
  });
});
