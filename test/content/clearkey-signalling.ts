// The sample's ClearKey signalling for the players that need more than the packager writes.
import { ContentError } from './content-error.ts';

/**
 * The packager signals a raw key in HLS as `KEYFORMAT="identity"` with the kid in a data: URI,
 * which hls.js does not take for SAMPLE-AES-CTR. ClearKey signalling as hls.js 1.7 reads it
 * (loader/level-key.ts): `KEYFORMAT="org.w3.clearkey"`, the kid as `KEYID=0x…` and, as before, in
 * the URI. Every key line is rewritten; a playlist without one is refused.
 */
export function clearKeySignalling(playlist: string, kid: string): string {
  let keys = 0;
  const rewritten = playlist.replace(/^#EXT-X-KEY:(.*)$/gm, (_, attributes: string) => {
    keys++;
    if (!/METHOD=SAMPLE-AES-CTR/.test(attributes) || !/KEYFORMAT="identity"/.test(attributes)) {
      throw new ContentError(
        'SELF_CHECK_FAILED',
        `the packager wrote an HLS key line this script does not know (${attributes.replace(/URI="[^"]*"/, 'URI=…')})`,
      );
    }
    return `#EXT-X-KEY:${attributes.replace(
      'KEYFORMAT="identity"',
      `KEYFORMAT="org.w3.clearkey",KEYFORMATVERSIONS="1",KEYID=0x${kid.toUpperCase()}`,
    )}`;
  });
  if (keys === 0) {
    throw new ContentError('SELF_CHECK_FAILED', 'an HLS media playlist has no #EXT-X-KEY line');
  }
  return rewritten;
}

/** The W3C common PSSH ContentProtection the packager writes for `--protection_systems CommonSystem`. */
const COMMON_PSSH =
  /<ContentProtection schemeIdUri="urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b">\s*<cenc:pssh>[^<]*<\/cenc:pssh>\s*<\/ContentProtection>/g;

/**
 * The DASH manifest with ClearKey signalled as DASH-IF IOP 4.1 (7.6.2.4) says: its own system ID
 * (`urn:uuid:e2719d58-…`) and no PSSH, so a player builds `keyids` init data from `default_KID`.
 * dash.js 5.2 needs it: given the common PSSH for ClearKey, it generates a `keyids` request with
 * the PSSH as its data, which the browser rejects. The segments are the same.
 */
export function dashIfClearKeyManifest(mpd: string): string {
  let replaced = 0;
  const rewritten = mpd.replace(COMMON_PSSH, () => {
    replaced++;
    return '<ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0"/>';
  });
  if (replaced === 0) {
    throw new ContentError(
      'SELF_CHECK_FAILED',
      'the DASH manifest has no W3C common PSSH ContentProtection to signal ClearKey in its place',
    );
  }
  return rewritten;
}
