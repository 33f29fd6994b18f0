import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decryptSegment,
  readAvcNalUnits,
  readClearSamples,
  readDefaultKid,
} from '../../../test/support/cenc/index.ts';
import { startEmulator, type RunningEmulator } from '../src/index.ts';
import { b64url, postLicense, TOKEN_SITE } from './helpers.ts';

// The committed sample: DASH encrypted with a raw key (CENC), plus the same clip packaged in clear.
const content = join(import.meta.dirname, '../../../test/fixtures/content');
const read = (path: string) => new Uint8Array(readFileSync(join(content, path)));
const sample = JSON.parse(readFileSync(join(content, 'keys.json'), 'utf8')) as {
  cid: string;
  kid: string;
  key: string;
};

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({
    sites: [TOKEN_SITE],
    keys: { [sample.cid]: { kid: sample.kid, key: sample.key } },
  });
});
afterAll(() => emulator.close());

describe('an issued ClearKey license decrypts the sample content', () => {
  it('gives the key that turns an encrypted video segment into the clear one', async () => {
    const init = read('video/init.mp4');
    // The key ID comes from the content itself, as a browser's CDM would ask for it.
    const kid = readDefaultKid(init);
    const token = createTokenIssuer(TOKEN_SITE).issue({ cid: sample.cid });
    const res = await postLicense(
      emulator.url,
      token,
      JSON.stringify({ kids: [b64url(kid)], type: 'temporary' }),
    );
    expect(res.status).toBe(200);
    const [jwk] = res.body['keys'] as { kid: string; k: string }[];
    expect(jwk?.kid).toBe(b64url(kid));

    const key = new Uint8Array(Buffer.from(jwk?.k ?? '', 'base64url'));
    const decrypted = decryptSegment(init, read('video/1.m4s'), key);
    const clear = readClearSamples(read('clear/video/init.mp4'), read('clear/video/1.m4s'));
    expect(decrypted.samples.length).toBe(clear.length);
    expect(decrypted.samples.length).toBeGreaterThan(0);
    decrypted.samples.forEach((s, i) => expect(Buffer.compare(s, clear[i] as Uint8Array)).toBe(0));
    // And the decrypted bytes are real H.264: every sample splits into valid NAL units.
    for (const s of decrypted.samples) expect(readAvcNalUnits(s).length).toBeGreaterThan(0);
  });

  it('a key one bit off does not give the clear samples (the check above can fail)', () => {
    const init = read('video/init.mp4');
    const wrong = Buffer.from(sample.key, 'hex');
    wrong[0] = (wrong[0] ?? 0) ^ 1;
    const decrypted = decryptSegment(init, read('video/1.m4s'), new Uint8Array(wrong));
    const clear = readClearSamples(read('clear/video/init.mp4'), read('clear/video/1.m4s'));
    expect(decrypted.samples.some((s, i) => Buffer.compare(s, clear[i] as Uint8Array) !== 0)).toBe(
      true,
    );
  });
});
