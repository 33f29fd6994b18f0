import Hls from 'hls.js';
import { attachLicenseAuth, findLicenseAuthError } from '@multidrm/player/hls';
import type { AttachPlayer } from './part.ts';

/**
 * hls.js: the adapter sends each license request itself from `licenseXhrSetup` and hands hls.js
 * the license as a `data:` URL (hence `data:` in the page's connect-src).
 */
export const attachHls: AttachPlayer = async (video, plan, options, fail) => {
  const hls = new Hls();
  const auth = attachLicenseAuth(hls, options);
  hls.on(Hls.Events.ERROR, (_, data) => {
    // Non-fatal errors are hls.js recovering on its own; a license failure always ends the play.
    if (data.fatal || findLicenseAuthError(data)) fail(data);
  });
  return {
    auth,
    load: () =>
      new Promise<void>((resolve) => {
        hls.once(Hls.Events.MANIFEST_PARSED, () => resolve());
        hls.loadSource(plan.manifestUrl);
        hls.attachMedia(video);
      }),
    destroy: async () => hls.destroy(),
  };
};
