// The package's entries: `@multidrm/player` stays the Shaka integration it was before the other
// players came in, `@multidrm/player/shaka` is the same module, and every adapter's entry shares
// one engine (its errors are the same classes whichever entry the app imports them from).
import { describe, expect, test } from 'vitest';
import * as main from '../src/index.ts';
import * as dash from '../src/dash/index.ts';
import * as hls from '../src/hls/index.ts';
import * as shaka from '../src/shaka/index.ts';
import * as videojs from '../src/videojs/index.ts';
import packageJson from '../package.json' with { type: 'json' };

/** What `@multidrm/player` exported (values, not types) before the engine and adapters split. */
const SHAKA_API = [
  'attachLicenseAuth',
  'LicenseAuthError',
  'LicenseServiceError',
  'TokenFetchError',
  'findLicenseAuthError',
  'drmTypeFor',
  'DEFAULT_RETRY',
  'contentIdFromSkd',
  'fairPlayInitDataTransform',
  'normaliseCertificate',
  'spcFormBody',
  'unwrapCkc',
  'parseServiceError',
  'readLicenseAnswer',
];

describe('@multidrm/player and @multidrm/player/shaka', () => {
  test('export everything the package exported before, as the same values', () => {
    for (const name of SHAKA_API) {
      expect(main, name).toHaveProperty(name);
      expect((main as Record<string, unknown>)[name]).toBe(
        (shaka as Record<string, unknown>)[name],
      );
    }
    expect(Object.keys(main).sort()).toEqual(Object.keys(shaka).sort());
  });
});

describe('the adapters’ entries', () => {
  test.each([
    ['hls', hls],
    ['dash', dash],
    ['videojs', videojs],
  ] as const)('%s has its own attachLicenseAuth and the shared errors', (_, entry) => {
    expect(typeof entry.attachLicenseAuth).toBe('function');
    expect(entry.attachLicenseAuth).not.toBe(main.attachLicenseAuth);
    expect(entry.LicenseAuthError).toBe(main.LicenseAuthError);
    expect(entry.LicenseServiceError).toBe(main.LicenseServiceError);
    expect(entry.TokenFetchError).toBe(main.TokenFetchError);
    expect(entry.findLicenseAuthError).toBe(main.findLicenseAuthError);
  });

  test('package.json names each entry, in the workspace and once published', () => {
    const subpaths = ['.', './shaka', './hls', './dash', './videojs'];
    expect(Object.keys(packageJson.exports)).toEqual([...subpaths, './package.json']);
    expect(Object.keys(packageJson.publishConfig.exports)).toEqual([...subpaths, './package.json']);
    for (const peer of ['shaka-player', 'hls.js', 'dashjs', 'video.js', 'videojs-contrib-eme']) {
      expect(packageJson.peerDependenciesMeta).toHaveProperty([peer, 'optional'], true);
    }
  });
});
