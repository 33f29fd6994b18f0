// First, before video.js runs: no <style> elements of its own (the page's CSP allows none).
import './videojs-style-off.ts';
import videojsModule from 'video.js';
import 'videojs-contrib-eme';
import { attachLicenseAuth, type VideoJsPlayer } from '@multidrm/player/videojs';
import type { AttachPlayer } from './part.ts';

// The CommonJS build's exports object is the function itself.
const videojs = videojsModule as unknown as typeof videojsModule.default;

/**
 * video.js with videojs-contrib-eme, DASH through its VHS: the adapter answers the plugin's
 * `getLicense` for each key system given to `player.src()`. Only the media element: the browser's
 * own controls, as with the other players, and no video.js style sheet to load.
 */
export const attachVideoJs: AttachPlayer = async (video, plan, options, fail) => {
  const player = videojs(video, { children: ['mediaLoader'], controls: false, muted: true });
  player.usingNativeControls(true);
  player.controls(true);
  const auth = attachLicenseAuth(player as unknown as VideoJsPlayer, options);
  player.on('error', () => fail(player.error()));
  return {
    auth,
    load: () =>
      new Promise<void>((resolve) => {
        player.one('loadedmetadata', () => resolve());
        // The plan's key system only: in proxy mode the handle answers for every key system (the
        // proxy URL serves them all), and the demo plays ClearKey.
        const keySystems = { [plan.keySystem]: auth.keySystems[plan.keySystem] };
        player.src({ src: plan.manifestUrl, type: plan.manifestType, keySystems });
      }),
    destroy: async () => player.dispose(),
  };
};
