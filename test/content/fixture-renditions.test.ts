// The renditions beside the DASH manifest, made from the same segments by the same script: the HLS
// playlists (ClearKey as hls.js 1.7 reads it) and the DASH manifest with DASH-IF ClearKey
// signalling (what dash.js 5.2 plays).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURE_DIR, fixtureKeys, fixtureText } from './fixture.ts';
import { descendants, parseXml } from './xml-elements.ts';

const keys = fixtureKeys();
const CLEARKEY_SYSTEM = 'urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e';
const COMMON_SYSTEM = 'urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b';

/** Attributes of an HLS tag line, e.g. `METHOD=SAMPLE-AES-CTR,URI="…"` (quoted values unquoted). */
function attributes(line: string): Record<string, string> {
  const list = line.slice(line.indexOf(':') + 1);
  return Object.fromEntries(
    [...list.matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g)].map(([, name = '', value = '']) => [
      name,
      value.replace(/^"|"$/g, ''),
    ]),
  );
}

describe('the HLS rendition', () => {
  const master = fixtureText('master.m3u8');

  test('names one video stream and one audio rendition, with their codecs', () => {
    const stream = master.split('\n').find((l) => l.startsWith('#EXT-X-STREAM-INF:')) ?? '';
    expect(attributes(stream)['CODECS']).toMatch(/^avc1\.(42|4d)[0-9a-f]{4},mp4a\.40\.2$/);
    expect(attributes(stream)['RESOLUTION']).toBe('640x360');
    expect(master).toContain('\nvideo.m3u8\n');
    const media = master.split('\n').find((l) => l.startsWith('#EXT-X-MEDIA:')) ?? '';
    expect(attributes(media)).toMatchObject({ TYPE: 'AUDIO', URI: 'audio.m3u8' });
  });

  test.each(['video', 'audio'])(
    'plays the %s segments of the DASH manifest, fMP4 with the same init segment',
    (kind) => {
      const lines = fixtureText(`${kind}.m3u8`).split('\n');
      expect(lines).toContain(`#EXT-X-MAP:URI="${kind}/init.mp4"`);
      const segments = lines.filter((l) => l.endsWith('.m4s'));
      expect(segments).toEqual([1, 2, 3, 4].map((n) => `${kind}/${n}.m4s`));
      for (const segment of segments) expect(existsSync(join(FIXTURE_DIR, segment))).toBe(true);
      expect(lines).toContain('#EXT-X-ENDLIST');
    },
  );

  test.each(['video', 'audio'])(
    'signals the %s key as ClearKey with the kid of keys.json, as hls.js reads it',
    (kind) => {
      const keyLines = fixtureText(`${kind}.m3u8`)
        .split('\n')
        .filter((l) => l.startsWith('#EXT-X-KEY:'));
      expect(keyLines).toHaveLength(1);
      const key = attributes(keyLines[0] ?? '');
      expect(key['METHOD']).toBe('SAMPLE-AES-CTR');
      expect(key['KEYFORMAT']).toBe('org.w3.clearkey');
      expect(key['KEYFORMATVERSIONS']).toBe('1');
      expect(key['KEYID']).toBe(`0x${keys.kid.toUpperCase()}`);
      const uri = key['URI'] ?? '';
      expect(uri.startsWith('data:text/plain;base64,')).toBe(true);
      expect(Buffer.from(uri.split(',')[1] ?? '', 'base64').toString('hex')).toBe(keys.kid);
    },
  );
});

describe('the DASH manifest with DASH-IF ClearKey signalling', () => {
  const main = parseXml(fixtureText('manifest.mpd'));
  const clearkey = parseXml(fixtureText('manifest-clearkey.mpd'));

  test('protects each track with the ClearKey system ID and no PSSH, beside cenc and the kid', () => {
    for (const set of descendants(clearkey, 'AdaptationSet')) {
      const systems = descendants(set, 'ContentProtection').map((p) => p.attributes['schemeIdUri']);
      expect(systems).toEqual(['urn:mpeg:dash:mp4protection:2011', CLEARKEY_SYSTEM]);
      expect(descendants(set, 'cenc:pssh')).toEqual([]);
    }
    expect(fixtureText('manifest-clearkey.mpd')).not.toContain(COMMON_SYSTEM);
  });

  test('is the DASH manifest otherwise: the same representations and segment templates', () => {
    const shape = (mpd: typeof main) =>
      descendants(mpd, 'Representation').map((r) => ({
        ...r.attributes,
        template: descendants(r, 'SegmentTemplate')[0]?.attributes,
      }));
    expect(shape(clearkey)).toEqual(shape(main));
    const kids = (mpd: typeof main) =>
      descendants(mpd, 'ContentProtection').flatMap((p) => p.attributes['cenc:default_KID'] ?? []);
    expect(kids(clearkey)).toEqual(kids(main));
  });
});
