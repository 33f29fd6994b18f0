/** drm_type values of the license-service spec; `drmTypes` may name others. */
export type DrmType = 'Widevine' | 'PlayReady' | 'FairPlay' | 'NCG' | 'Wiseplay' | (string & {});

// Matched by prefix, first match wins: EME key system strings carry version suffixes
// (`com.microsoft.playready.recommendation.3000`, `com.apple.fps.1_0`). ClearKey has no drm_type
// in the spec; it stands in for Widevine (same CENC content and cid) so tests can run the real flow
// in a browser without a commercial CDM.
const PREFIXES: ReadonlyArray<readonly [string, DrmType]> = [
  ['com.widevine.alpha', 'Widevine'],
  ['com.microsoft.playready', 'PlayReady'],
  ['com.chromecast.playready', 'PlayReady'],
  ['com.apple.fps', 'FairPlay'],
  // The fifth drm_type of the service's newest token builders (2026).
  ['com.huawei.wiseplay', 'Wiseplay'],
  ['org.w3.clearkey', 'Widevine'],
];

/** Key systems that get the `licenseServer` URL when one URL is given for all. */
export const SERVER_KEY_SYSTEMS = [
  'com.widevine.alpha',
  'com.microsoft.playready',
  'com.microsoft.playready.recommendation',
  'com.apple.fps',
] as const;

/**
 * The drm_type for an EME key system, or `undefined` for one this package does not handle.
 * `overrides` (exact key system or a prefix of it, first match wins) come before the built-in table.
 */
export function drmTypeFor(
  keySystem: string,
  overrides: Readonly<Record<string, string>> = {},
): DrmType | undefined {
  return [...Object.entries(overrides), ...PREFIXES].find(([prefix]) =>
    keySystem.startsWith(prefix),
  )?.[1];
}

export const isFairPlay = (keySystem: string): boolean => keySystem.startsWith('com.apple.fps');

/**
 * The content type the service takes a key system's license request in (the wire addendum, 1):
 * FairPlay's `spc=` form body, Widevine's and PlayReady's raw challenge as bytes. It replaces the
 * type a PlayReady CDM names for its SOAP challenge (text/xml), as the service's samples send it.
 */
export const challengeContentType = (keySystem: string): string | undefined =>
  // By the built-in table: the vendors' own key systems (`com.`), not ClearKey (which stands in
  // for Widevine) nor an app's override.
  keySystem.startsWith('com.')
    ? (
        {
          FairPlay: 'application/x-www-form-urlencoded',
          Widevine: 'application/octet-stream',
          PlayReady: 'application/octet-stream',
        } as Record<string, string>
      )[drmTypeFor(keySystem)!]
    : undefined;

// EME message types that are license requests; an individualization request goes to a third party
// and must not carry the token.
export const LICENSE_MESSAGES = ['license-request', 'license-renewal', 'license-release'];
