import { createTokenIssuer } from '@multidrm/site-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEmulatorHandler, ERROR_CODES } from '../src/index.ts';
import { CID, JSON_SITE, KEY, KID, TOKEN_SITE } from './helpers.ts';

// The web-standard handler alone (no sockets), so that many malformed requests run quickly. The
// JSON site's gateway URL is never reached: every input here fails before the callback.
const handler = createEmulatorHandler({
  sites: [TOKEN_SITE, { ...JSON_SITE, gatewayUrl: 'http://127.0.0.1:9/never' }],
  keys: { [CID]: { kid: KID, key: KEY } },
});
const token = createTokenIssuer(TOKEN_SITE).issue({ cid: CID });

async function send(header: string | undefined, body: string) {
  const headers: Record<string, string> = {};
  if (header !== undefined) headers['x-drm-custom-data'] = header;
  const response = await handler(
    new Request('http://emulator/license', { method: 'POST', headers, body }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const known = Object.keys(ERROR_CODES);
const headerValue = fc.oneof(
  fc.string(),
  fc.string().map((s) => Buffer.from(s).toString('base64')),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64')),
  fc
    .record({
      drm_type: fc.string(),
      site_id: fc.constantFrom(JSON_SITE.siteId, 'x'),
      data: fc.base64String(),
    })
    .map((v) => Buffer.from(JSON.stringify(v)).toString('base64')),
);
// Header values must be valid HTTP field values.
const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, '').trim();

describe('robustness of POST /license', () => {
  it('answers any header value with a 4xx JSON error from the table, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, async (value) => {
        const res = await send(safe(value) || undefined, '{"kids":["ABEiM0RVZneImaq7zN3u_w"]}');
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(known).toContain(res.body['error_code']);
        expect(typeof res.body['message']).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('answers any body with a valid token as 200 or BAD_LICENSE_REQUEST / KID_NOT_LICENSED', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.array(fc.base64String()).map((kids) => JSON.stringify({ kids })),
        ),
        async (body) => {
          const res = await send(token, body);
          if (res.status === 200) return;
          expect(['BAD_LICENSE_REQUEST', 'KID_NOT_LICENSED']).toContain(res.body['error_code']);
        },
      ),
      { numRuns: 300 },
    );
  });
});
