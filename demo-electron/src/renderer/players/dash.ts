import * as dashjs from 'dashjs';
import { attachLicenseAuth } from '@multidrm/player/dash';
import type { AttachPlayer } from './part.ts';

/**
 * dash.js: the adapter sends each license request from dash.js's license request filter and points
 * dash.js at the license as a `data:` URL; a refusal arrives as dash.js's `error` event (code 111).
 */
export const attachDash: AttachPlayer = async (video, plan, options, fail) => {
  const player = dashjs.MediaPlayer().create();
  // dash.js looks for ClearKey keys in its protection data before it asks the license server, and
  // logs "Failed to retrieve clearkeys" as an error on every play when they are not there (they never
  // are: the license comes from the emulator). Its real errors reach the page as ERROR events below.
  player.updateSettings({ debug: { logLevel: dashjs.Debug.LOG_LEVEL_FATAL } });
  const auth = attachLicenseAuth(player, options);
  player.on(dashjs.MediaPlayer.events.ERROR, (event) => fail(event));
  return {
    auth,
    load: () =>
      new Promise<void>((resolve) => {
        player.on(dashjs.MediaPlayer.events.STREAM_INITIALIZED, () => resolve());
        player.initialize(video, plan.manifestUrl, false);
      }),
    destroy: async () => player.destroy(),
  };
};
