import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decryptSegment, readDefaultKid } from '../support/cenc/index.ts';
import { FIXTURE_DIR, fixtureBytes, fixtureKeys, fixtureText } from './fixture.ts';
import { makeRekeyedContent, rekeyText, type RekeyedContent } from './rekeyed-content.ts';

const keys = fixtureKeys();
const OTHER_KID = '0b5e7d1c2a3f4e5d8c9b0a1f2e3d4c5b';

describe('a copy of the sample under another key ID', () => {
  let copy: RekeyedContent;
  beforeAll(async () => {
    copy = await makeRekeyedContent(FIXTURE_DIR, keys.kid, OTHER_KID);
  });
  afterAll(() => copy.remove());
  const read = (path: string) => readFile(join(copy.dir, path));
  const text = async (path: string) => (await read(path)).toString('utf8');

  test.each(['video', 'audio'])(
    'its %s init segment names the new key ID, and its media decrypt with the sample key',
    async (kind) => {
      const init = await read(`${kind}/init.mp4`);
      expect(readDefaultKid(init)).toBe(OTHER_KID);
      const decrypted = decryptSegment(
        init,
        await read(`${kind}/1.m4s`),
        Buffer.from(keys.key, 'hex'),
      );
      expect(decrypted.kid).toBe(OTHER_KID);
      expect(decrypted.samples.length).toBeGreaterThan(0);
    },
  );

  test('the DASH manifests name only the new key ID, in default_KID and in the PSSH', async () => {
    const dashed = (k: string) =>
      `${k.slice(0, 8)}-${k.slice(8, 12)}-${k.slice(12, 16)}-${k.slice(16, 20)}-${k.slice(20)}`;
    for (const mpd of ['manifest.mpd', 'manifest-clearkey.mpd']) {
      const body = await text(mpd);
      expect(body).toContain(`cenc:default_KID="${dashed(OTHER_KID)}"`);
      expect(body).not.toContain(dashed(keys.kid));
    }
    const pssh = /<cenc:pssh>([^<]*)</.exec(await text('manifest.mpd'))?.[1] ?? '';
    const box = Buffer.from(pssh, 'base64');
    expect(box.includes(Buffer.from(OTHER_KID, 'hex'))).toBe(true);
    expect(box.includes(Buffer.from(keys.kid, 'hex'))).toBe(false);
    expect(box.length).toBe(
      Buffer.from(/<cenc:pssh>([^<]*)</.exec(fixtureText('manifest.mpd'))?.[1] ?? '', 'base64')
        .length,
    );
  });

  test.each(['video', 'audio'])(
    'the HLS %s playlist names the new key ID in KEYID and in its data: URI',
    async (kind) => {
      const playlist = await text(`${kind}.m3u8`);
      expect(playlist).toContain(`KEYID=0x${OTHER_KID.toUpperCase()}`);
      expect(playlist).toContain(
        `URI="data:text/plain;base64,${Buffer.from(OTHER_KID, 'hex').toString('base64')}"`,
      );
      expect(playlist).not.toContain(keys.kid.toUpperCase());
    },
  );

  test('the committed sample is left as it was', () => {
    expect(readDefaultKid(fixtureBytes('video/init.mp4'))).toBe(keys.kid);
  });
});

test('a manifest without the key ID is refused with the file named', () => {
  const kid = Buffer.from(keys.kid, 'hex');
  expect(() => rekeyText('<MPD/>', kid, Buffer.from(OTHER_KID, 'hex'), 'x.mpd')).toThrow(
    'x.mpd: the key ID is not where expected',
  );
});

test('a key ID that is not 32 lowercase hex digits is refused before anything is copied', async () => {
  await expect(makeRekeyedContent(FIXTURE_DIR, keys.kid, 'not-a-kid')).rejects.toThrow(
    'toKid must be 32 lowercase hex digits',
  );
});
