import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readBoxes } from '../support/cenc/index.ts';
import { FIXTURE_DIR, fixtureBytes, fixtureKeys, fixtureText } from './fixture.ts';
import { descendants, parseXml } from './xml-elements.ts';
import type { XmlElement } from './xml-elements.ts';

const MP4_PROTECTION = 'urn:mpeg:dash:mp4protection:2011';
const COMMON_SYSTEM = 'urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b';

const keys = fixtureKeys();
const mpd = parseXml(fixtureText('manifest.mpd'));
const adaptationSets = descendants(mpd, 'AdaptationSet');

function adaptationSet(contentType: string): XmlElement {
  const set = adaptationSets.find((s) => s.attributes['contentType'] === contentType);
  if (set === undefined) throw new Error(`no ${contentType} AdaptationSet`);
  return set;
}

function dashedKid(hex: string): string {
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    hex.slice(12, 16),
    hex.slice(16, 20),
    hex.slice(20),
  ].join('-');
}

/** KIDs listed in a version-1 pssh box. */
function psshKids(base64: string): string[] {
  const [box] = readBoxes(Buffer.from(base64, 'base64'));
  if (box?.type !== 'pssh') throw new Error('not a pssh box');
  const body = Buffer.from(box.payload);
  expect(body[0]).toBe(1);
  const count = body.readUInt32BE(20);
  return Array.from({ length: count }, (_, i) =>
    body.subarray(24 + 16 * i, 40 + 16 * i).toString('hex'),
  );
}

function totalSize(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name);
    return sum + (entry.isDirectory() ? totalSize(path) : statSync(path).size);
  }, 0);
}

describe('keys.json', () => {
  test('holds exactly cid, kid, key and durationSeconds', () => {
    expect(Object.keys(keys)).toEqual(['cid', 'kid', 'key', 'durationSeconds']);
    expect(keys.cid).toBe('multidrm-sample');
    expect(keys.kid).toMatch(/^[0-9a-f]{32}$/);
    expect(keys.key).toMatch(/^[0-9a-f]{32}$/);
    expect(keys.key).not.toBe(keys.kid);
    expect(keys.durationSeconds).toBe(8);
  });
});

describe('the encrypted manifest', () => {
  test('is a static DASH presentation as long as keys.json says', () => {
    expect(mpd.name).toBe('MPD');
    expect(mpd.attributes['type']).toBe('static');
    expect(mpd.attributes['mediaPresentationDuration']).toBe(`PT${keys.durationSeconds}S`);
  });

  test('has one video and one audio representation of the expected codecs', () => {
    expect(adaptationSets.map((s) => s.attributes['contentType']).sort()).toEqual([
      'audio',
      'video',
    ]);
    const [video] = descendants(adaptationSet('video'), 'Representation');
    const [audio] = descendants(adaptationSet('audio'), 'Representation');
    expect(video?.attributes['mimeType']).toBe('video/mp4');
    expect(video?.attributes['codecs']).toMatch(/^avc1\.(42|4d)/);
    expect(adaptationSet('video').attributes['width']).toBe('640');
    expect(adaptationSet('video').attributes['height']).toBe('360');
    expect(audio?.attributes['mimeType']).toBe('audio/mp4');
    expect(audio?.attributes['codecs']).toBe('mp4a.40.2');
  });

  test.each(['video', 'audio'])(
    'protects the %s track with cenc, the common system and the kid of keys.json',
    (contentType) => {
      const protections = descendants(adaptationSet(contentType), 'ContentProtection');
      const mp4 = protections.find((p) => p.attributes['schemeIdUri'] === MP4_PROTECTION);
      expect(mp4?.attributes['value']).toBe('cenc');
      expect(mp4?.attributes['cenc:default_KID']).toBe(dashedKid(keys.kid));
      const common = protections.find((p) => p.attributes['schemeIdUri'] === COMMON_SYSTEM);
      const [pssh] = common === undefined ? [] : descendants(common, 'cenc:pssh');
      expect(psshKids(pssh?.text ?? '')).toEqual([keys.kid]);
    },
  );

  test.each(['video', 'audio'])(
    'lists %s segments of 2 s that all exist, covering the whole duration',
    (contentType) => {
      const [template] = descendants(adaptationSet(contentType), 'SegmentTemplate');
      const timescale = Number(template?.attributes['timescale']);
      expect(template?.attributes['media']).toBe(`${contentType}/$Number$.m4s`);
      expect(existsSync(join(FIXTURE_DIR, template?.attributes['initialization'] ?? '-'))).toBe(
        true,
      );
      const durations = descendants(template ?? mpd, 'S').flatMap((s) =>
        Array<number>(Number(s.attributes['r'] ?? 0) + 1).fill(
          Number(s.attributes['d']) / timescale,
        ),
      );
      expect(durations.length).toBe(keys.durationSeconds / 2);
      for (const seconds of durations) expect(seconds).toBeCloseTo(2, 1);
      durations.forEach((_, i) => {
        expect(existsSync(join(FIXTURE_DIR, contentType, `${i + 1}.m4s`))).toBe(true);
      });
    },
  );
});

describe('the clear packaging', () => {
  test('has the same tracks and no ContentProtection', () => {
    const clear = parseXml(fixtureText('clear/manifest.mpd'));
    expect(descendants(clear, 'ContentProtection')).toEqual([]);
    const types = descendants(clear, 'AdaptationSet').map((s) => s.attributes['contentType']);
    expect(types.sort()).toEqual(['audio', 'video']);
  });
});

describe('the reference frames', () => {
  test.each([1, 2, 3, 4])('frames/%ss.png is a 640x360 PNG', (seconds) => {
    const png = Buffer.from(fixtureBytes(`frames/${seconds}s.png`));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([640, 360]);
  });

  test('differ from each other (the clip moves)', () => {
    const hashes = [1, 2, 3, 4].map((s) =>
      Buffer.from(fixtureBytes(`frames/${s}s.png`)).toString('base64'),
    );
    expect(new Set(hashes).size).toBe(4);
  });
});

test('the whole fixture stays under 2 MB', () => {
  expect(totalSize(FIXTURE_DIR)).toBeLessThan(2 * 1024 * 1024);
});
