import { createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/index.ts';
import {
  b64url,
  CID,
  KEY,
  KID,
  OTHER_KID,
  refusalOf,
  TOKEN_SITE,
  type LicenseResult,
} from './helpers.ts';

// The ClearKey license as the service's proxy samples fetch it (wire addendum, section 7): a GET of
// the ClearKey license URL with siteId and cid, the token in the header, no body.
const OTHER_KEY = 'ffeeddccbbaa99887766554433221100';
let emulator: RunningEmulator;
const issuer = createTokenIssuer(TOKEN_SITE);

beforeAll(async () => {
  emulator = await startEmulator({
    sites: [TOKEN_SITE],
    keys: {
      [CID]: [
        { kid: KID, key: KEY },
        { kid: OTHER_KID, key: OTHER_KEY },
      ],
      'movie-2': { kid: '0123456789abcdef0123456789abcdef', key: KEY },
    },
  });
});
afterAll(() => emulator.close());

async function getClearKey(query: string, token: string | undefined): Promise<LicenseResult> {
  const response = await fetch(`${emulator.url}/ri/clearkey/licenseManager.do${query}`, {
    headers: token === undefined ? {} : { 'x-drm-custom-data': token },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

describe('GET /ri/clearkey/licenseManager.do?siteId=&cid=', () => {
  it('answers a ClearKey license with every key of the cid', async () => {
    const res = await getClearKey(
      `?siteId=${TOKEN_SITE.siteId}&cid=${CID}`,
      issuer.issue({ cid: CID }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      keys: [
        { kty: 'oct', kid: b64url(KID), k: b64url(KEY) },
        { kty: 'oct', kid: b64url(OTHER_KID), k: b64url(OTHER_KEY) },
      ],
      type: 'temporary',
    });
  });

  it.each([
    ['siteId', `?cid=${CID}`],
    ['cid', `?siteId=${TOKEN_SITE.siteId}`],
    ['cid', `?siteId=${TOKEN_SITE.siteId}&cid=`],
  ])('refuses a GET without %s with 9001', async (parameter, query) => {
    const refusal = refusalOf(await getClearKey(query, issuer.issue({ cid: CID })));
    expect(refusal).toMatchObject({ errorCode: '9001', field: parameter });
    expect(refusal.detail).toContain(`needs the ${parameter} query parameter`);
  });

  it('refuses a GET for another cid than the token’s with 7012', async () => {
    const refusal = refusalOf(
      await getClearKey(`?siteId=${TOKEN_SITE.siteId}&cid=movie-2`, issuer.issue({ cid: CID })),
    );
    expect(refusal.errorCode).toBe('7012');
  });

  it('refuses a GET for another site than the token’s with 1003', async () => {
    const refusal = refusalOf(
      await getClearKey(`?siteId=ELSEWHERE&cid=${CID}`, issuer.issue({ cid: CID })),
    );
    expect(refusal.errorCode).toBe('1003');
  });

  it('refuses a GET without a token with 7010, as any license request without one', async () => {
    const res = await getClearKey(`?siteId=${TOKEN_SITE.siteId}&cid=${CID}`, undefined);
    expect(refusalOf(res).errorCode).toBe('7010');
  });

  it('is a GET of the ClearKey path only: the license path still takes POST alone', async () => {
    const response = await fetch(
      `${emulator.url}/ri/licenseManager.do?siteId=${TOKEN_SITE.siteId}&cid=${CID}`,
      {
        headers: { 'x-drm-custom-data': issuer.issue({ cid: CID }) },
      },
    );
    expect(response.status).toBe(405);
    await response.body?.cancel();
  });
});
