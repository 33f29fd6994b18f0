import shakaModule from 'shaka-player';
import type Shaka from 'shaka-player';
import { attachLicenseAuth } from '@multidrm/player/shaka';
import type { AttachPlayer } from './part.ts';

// The CommonJS build's exports object is the namespace itself.
const shaka = shakaModule as unknown as typeof Shaka.default;
shaka.polyfill.installAll();

/** Shaka Player: the adapter works through its networking engine's request and response filters. */
export const attachShaka: AttachPlayer = async (video, plan, options, fail) => {
  const player = new shaka.Player();
  await player.attach(video);
  player.configure({
    // One attempt per license: a refusal is shown as it is, not retried with a fresh token.
    drm: { preferredKeySystems: [plan.keySystem], retryParameters: { maxAttempts: 1 } },
    streaming: { retryParameters: { maxAttempts: 1 } },
    manifest: { retryParameters: { maxAttempts: 1 } },
  });
  const auth = attachLicenseAuth(player, options);
  player.addEventListener('error', (event) =>
    fail((event as unknown as { detail: unknown }).detail),
  );
  return {
    auth,
    load: () => player.load(plan.manifestUrl),
    destroy: () => player.destroy(),
  };
};
