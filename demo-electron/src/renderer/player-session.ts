import shakaModule from 'shaka-player';
import type Shaka from 'shaka-player';
import { attachLicenseAuth, type LicenseAuthHandle } from '@multidrm/player';
import type { PlayPlan } from '../shared/contract.ts';
import { playerStep, type Step } from './flow-steps.ts';

type ShakaNs = typeof Shaka.default;
// The CommonJS build's exports object is the namespace itself.
const shaka = shakaModule as unknown as ShakaNs;
shaka.polyfill.installAll();

export interface SessionCallbacks {
  step(step: Step): void;
  firstFrame(at: number): void;
  /** Every error the player reports, before or after playback began. */
  failed(error: unknown): void;
}

export interface PlaySession {
  /** Resolves when the manifest is loaded and playback began; rejects with what stopped it. */
  loaded: Promise<void>;
  destroy(): Promise<void>;
}

/** One play attempt: a fresh Shaka player with the license auth of the plan attached. */
export function startSession(
  video: HTMLVideoElement,
  plan: PlayPlan,
  callbacks: SessionCallbacks,
): PlaySession {
  const player = new shaka.Player();
  let auth: LicenseAuthHandle | undefined;
  let frameSeen = false;
  let pendingAnswers = 0;
  const onFrame = () => {
    if (frameSeen) return;
    frameSeen = true;
    callbacks.firstFrame(Date.now());
  };

  const loaded = (async () => {
    await player.attach(video);
    player.configure({
      // One attempt per license: a refusal is shown as it is, not retried with a fresh token.
      drm: { preferredKeySystems: [plan.keySystem], retryParameters: { maxAttempts: 1 } },
      streaming: { retryParameters: { maxAttempts: 1 } },
      manifest: { retryParameters: { maxAttempts: 1 } },
    });
    auth = attachLicenseAuth(player, {
      contentId: plan.cid,
      ...(plan.tokenUrl ? { tokenUrl: plan.tokenUrl } : { customDataUrl: plan.customDataUrl }),
      licenseServer: { [plan.keySystem]: plan.licenseUrl },
      header: plan.header,
      retry: { maxAttempts: 1 },
    });
    for (const name of [
      'tokenRequested',
      'tokenReceived',
      'tokenFailed',
      'licenseRequestSent',
      'licenseAnswered',
    ] as const) {
      auth.on(name, (event) => {
        // Shaka reports a refused license request twice (the HTTP status, then the failure): one row.
        if (name === 'licenseRequestSent') pendingAnswers++;
        if (name === 'licenseAnswered') {
          if (pendingAnswers === 0) return;
          pendingAnswers--;
        }
        callbacks.step(playerStep({ name, event } as Parameters<typeof playerStep>[0], Date.now()));
      });
    }
    const watchFrames = () =>
      video.requestVideoFrameCallback
        ? video.requestVideoFrameCallback(onFrame)
        : video.addEventListener('playing', onFrame, { once: true });
    watchFrames();
    // A license refusal can arrive after load() resolved, while play() waits for a key.
    const failed = new Promise<never>((_, reject) =>
      player.addEventListener('error', (event) => {
        const detail = (event as unknown as { detail: unknown }).detail;
        callbacks.failed(detail);
        reject(detail);
      }),
    );
    failed.catch(() => undefined);
    await Promise.race([player.load(plan.manifestUrl), failed]);
    await Promise.race([video.play(), failed]);
  })();

  return {
    loaded,
    async destroy() {
      auth?.detach();
      await player.destroy();
    },
  };
}
