import { describe, expect, it } from 'vitest';
import * as node from '../../src/token.ts';
import * as web from '../../src/web/token.ts';
import { vectors } from '../../../../test/support/vectors.ts';
import { vectorsV2 } from '../../../../test/support/vectors-v2.ts';

// The report a console draws: the verifier's verdict as data, with the hash readings, the window
// and the license service's refusal code.
const v1 = vectors.token[0]!;
const v2 = vectorsV2.vectors[0]!;
const keys = { siteKey: v1.site_key, accessKey: v1.access_key };
const at = (timestamp: string, seconds: number) => Date.parse(timestamp) + seconds * 1000;

describe.each([
  ['on Web Crypto', web],
  ['on node:crypto', node],
] as const)('inspectLicenseTokenAsync %s', (_name, { inspectLicenseTokenAsync }) => {
  it('verifies the v1 vector inside its window, naming the reading that matched', async () => {
    const report = await inspectLicenseTokenAsync(v1.expected.token, {
      ...keys,
      now: at(v1.timestamp, 10),
    });
    expect(report.error).toBeUndefined();
    expect(report.hash).toEqual({ expected: 'hex-text', matching: 'hex-text' });
    expect(report.verified?.policy).toEqual(JSON.parse(v1.token_data));
    expect(report.window?.expiresMs).toBe(at(v1.timestamp, 600));
  });

  it('verifies the v2 vector with the raw-digest reading', async () => {
    const report = await inspectLicenseTokenAsync(v2.token, {
      siteKey: vectorsV2.common.site_key,
      accessKey: vectorsV2.common.access_key,
      now: at(vectorsV2.common.timestamp, 1),
    });
    expect(report.verified?.version).toBe(2);
    expect(report.hash).toEqual({ expected: 'raw-digest', matching: 'raw-digest' });
  });

  it('reports an expired token with the service code 7011 instead of throwing', async () => {
    const report = await inspectLicenseTokenAsync(v1.expected.token, {
      ...keys,
      now: at(v1.timestamp, 601),
    });
    expect(report.error?.code).toBe('TOKEN_EXPIRED');
    expect(report.refusal).toEqual({ code: '7011', own: false });
    expect(report.read?.fields.cid).toBe(v1.cid);
  });

  it('says a v1 token hashed with the other reading matches raw-digest, code 7019', async () => {
    const report = await inspectLicenseTokenAsync(v1.expected.token_raw_digest, {
      ...keys,
      now: at(v1.timestamp, 1),
    });
    expect(report.hash).toEqual({ expected: 'hex-text', matching: 'raw-digest' });
    expect(report.error?.code).toBe('HASH_MISMATCH');
    expect(report.refusal?.code).toBe('7019');
  });

  it('reports another site as SITE_MISMATCH and a non-token as MALFORMED_TOKEN (7009)', async () => {
    const other = await inspectLicenseTokenAsync(v1.expected.token, { ...keys, siteId: 'OTHER' });
    expect(other.error?.code).toBe('SITE_MISMATCH');
    const bad = await inspectLicenseTokenAsync('not a token');
    expect(bad.read).toBeUndefined();
    expect(bad.refusal).toEqual({ code: '7009', own: false });
  });

  it('reads without keys: fields and window, no verdict', async () => {
    const report = await inspectLicenseTokenAsync(v2.token, { now: 0 });
    expect(report.read?.version).toBe(2);
    expect(report.hash).toBeUndefined();
    expect(report.verified).toBeUndefined();
    expect(report.error).toBeUndefined();
  });
});
