import { describe, expect, test } from 'vitest';
import { clearKeySignalling, dashIfClearKeyManifest } from './clearkey-signalling.ts';
import { ContentError } from './content-error.ts';

const KID = '3cd8f6214d7f9677f0b076ca18df2502';

describe('clearKeySignalling', () => {
  test('turns the packager’s identity key line into ClearKey with the kid, and leaves the rest', () => {
    const playlist = [
      '#EXTM3U',
      '#EXT-X-MAP:URI="video/init.mp4"',
      '#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,PNj2IU1/lnfwsHbKGN8lAg==",KEYFORMAT="identity"',
      '#EXTINF:2.000,',
      'video/1.m4s',
    ].join('\n');
    expect(clearKeySignalling(playlist, KID).split('\n')).toEqual([
      '#EXTM3U',
      '#EXT-X-MAP:URI="video/init.mp4"',
      '#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,PNj2IU1/lnfwsHbKGN8lAg==",KEYFORMAT="org.w3.clearkey",KEYFORMATVERSIONS="1",KEYID=0x3CD8F6214D7F9677F0B076CA18DF2502',
      '#EXTINF:2.000,',
      'video/1.m4s',
    ]);
  });

  test('refuses a playlist without a key line, and a key line it does not know', () => {
    expect(() => clearKeySignalling('#EXTM3U\nvideo/1.m4s\n', KID)).toThrow(ContentError);
    expect(() =>
      clearKeySignalling('#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k"\n', KID),
    ).toThrow('an HLS key line this script does not know (METHOD=AES-128,URI=…)');
  });
});

describe('dashIfClearKeyManifest', () => {
  const pssh =
    '<ContentProtection schemeIdUri="urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b">\n' +
    '        <cenc:pssh>AAAANHBzc2g=</cenc:pssh>\n      </ContentProtection>';

  test('puts the ClearKey system ID without PSSH in place of each common PSSH', () => {
    const mpd = `<AdaptationSet>${pssh}</AdaptationSet><AdaptationSet>${pssh}</AdaptationSet>`;
    const clearKey =
      '<ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0"/>';
    expect(dashIfClearKeyManifest(mpd)).toBe(
      `<AdaptationSet>${clearKey}</AdaptationSet><AdaptationSet>${clearKey}</AdaptationSet>`,
    );
  });

  test('refuses a manifest without a common PSSH', () => {
    expect(() => dashIfClearKeyManifest('<MPD></MPD>')).toThrow(
      'the DASH manifest has no W3C common PSSH ContentProtection',
    );
  });
});
