import { createTokenIssuer } from '@multidrm/site-kit';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createEmulatorHandler, ERROR_CODES, REFUSAL_REASONS, type Dialect } from '../src/index.ts';
import { CID, JSON_SITE, KEY, KID, TOKEN_SITE } from './helpers.ts';

// The web-standard handler alone (no sockets), so that many malformed requests run quickly. The
// JSON site's gateway URL is never reached: every input here fails before the callback.
const handlers = Object.fromEntries(
  (['service', 'explain'] as const).map((dialect) => [
    dialect,
    createEmulatorHandler({
      dialect,
      sites: [TOKEN_SITE, { ...JSON_SITE, gatewayUrl: 'http://127.0.0.1:9/never' }],
      keys: { [CID]: { kid: KID, key: KEY } },
    }),
  ]),
) as Record<Dialect, ReturnType<typeof createEmulatorHandler>>;
const token = createTokenIssuer(TOKEN_SITE).issue({ cid: CID });

// 300 generated requests per test: a budget that fits a busy 2-core machine (issue 30); no time is
// asserted, the budget only stops a hang.
vi.setConfig({ testTimeout: 30_000 });

async function send(dialect: Dialect, header: string | undefined, body: string) {
  const headers: Record<string, string> = {};
  if (header !== undefined) headers['x-drm-custom-data'] = header;
  const response = await handlers[dialect](
    new Request('http://emulator/ri/licenseManager.do', { method: 'POST', headers, body }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const serviceCodes = REFUSAL_REASONS.map((r) => ERROR_CODES[r].serviceCode);
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
  fc
    .record({
      drm_type: fc.constantFrom('Widevine', 'PlayReady'),
      site_id: fc.constantFrom(TOKEN_SITE.siteId, 'x'),
      user_id: fc.string(),
      cid: fc.string(),
      policy: fc.base64String(),
      timestamp: fc.string(),
      hash: fc.base64String(),
    })
    .map((v) => Buffer.from(JSON.stringify(v)).toString('base64')),
);
// Header values must be valid HTTP field values.
const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, '').trim();
const kidBody = '{"kids":["ABEiM0RVZneImaq7zN3u_w"]}';

describe('robustness of POST /ri/licenseManager.do', () => {
  it('answers any header value in the service dialect with HTTP 200 and a code of the table, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, async (value) => {
        const res = await send('service', safe(value) || undefined, kidBody);
        expect(res.status).toBe(200);
        expect(serviceCodes).toContain(res.body['errorCode']);
        expect(REFUSAL_REASONS).toContain(res.body['reason']);
        expect(typeof res.body['message']).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('answers any header value in the explain dialect with a 4xx JSON error from the table', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, async (value) => {
        const res = await send('explain', safe(value) || undefined, kidBody);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(Object.keys(ERROR_CODES)).toContain(res.body['error_code']);
        expect(typeof res.body['message']).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('answers any body with a valid token with the license, 6005 or 6004', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.array(fc.base64String()).map((kids) => JSON.stringify({ kids })),
        ),
        async (body) => {
          const res = await send('service', token, body);
          expect(res.status).toBe(200);
          if (res.body['keys'] !== undefined) return;
          expect(['6005', '6004']).toContain(res.body['errorCode']);
        },
      ),
      { numRuns: 300 },
    );
  });
});
