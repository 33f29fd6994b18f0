// The browser side of a site outside this repository, written against the packed player (the
// packaging test type-checks it with the tarballs installed).
import shakaModule from 'shaka-player';
import type Shaka from 'shaka-player';
import { attachLicenseAuth, type LicenseAuthHandle } from '@multidrm/player';

// The CommonJS build's exports object is the namespace itself.
const shaka = shakaModule as unknown as typeof Shaka.default;
type MediaElement = Parameters<Shaka.default.Player['attach']>[0];

export async function play(video: MediaElement, cid: string): Promise<LicenseAuthHandle> {
  shaka.polyfill.installAll();
  const player = new shaka.Player();
  await player.attach(video);
  const auth = attachLicenseAuth(player, {
    contentId: cid,
    tokenUrl: '/api/drm-token',
    licenseServer: 'https://license.example.com/ri/licenseManager.do',
    header: 'x-example-header',
  });
  await player.load(`https://cdn.example.com/${cid}/manifest.mpd`);
  return auth;
}

export function typeCheckOnly(): LicenseAuthHandle {
  // @ts-expect-error contentId is a string: the types are the package's own, not `any`
  return attachLicenseAuth(new shaka.Player(), { contentId: 1 });
}
