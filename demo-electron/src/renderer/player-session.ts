import type { EngineEvents, EngineOptions } from '@multidrm/player';
import type { PlayPlan } from '../shared/contract.ts';
import { playerStep, type Step } from './flow-steps.ts';
import { PLAYER_PARTS } from './players/index.ts';
import type { AttachedPlayer, AuthHandle } from './players/part.ts';

export interface SessionCallbacks {
  step(step: Step): void;
  firstFrame(at: number): void;
  /** Every error the player reports, before or after playback began. */
  failed(error: unknown): void;
  /** The player renewed a license of the load (the screens: each renewal, with a fresh token). */
  renewed?(event: EngineEvents['licenseRenewed']): void;
}

export interface PlaySession {
  /** Resolves when the manifest is loaded and playback began; rejects with what stopped it. */
  loaded: Promise<void>;
  destroy(): Promise<void>;
}

const AUTH_EVENTS = [
  'tokenRequested',
  'tokenReceived',
  'tokenFailed',
  'licenseRequestSent',
  'licenseAnswered',
] as const;

/** The adapter's options from the plan: the same for every player. */
function authOptions(plan: PlayPlan): EngineOptions {
  // One attempt per request: a failure is shown as it is (a refusal a fresh token fixes still
  // gets its one fresh token).
  const retry = { maxAttempts: 1 };
  // Proxy mode: the site's proxy only; it knows the license server and adds the token itself.
  // The proxy URL serves the key systems of licensed DRMs; ClearKey, which the demo plays, is
  // served once drmTypes names it (as the drm_type a ClearKey request is in token mode).
  if (plan.licenseProxyUrl) {
    return {
      contentId: plan.cid,
      licenseProxy: plan.licenseProxyUrl,
      drmTypes: { [plan.keySystem]: 'Widevine' },
      retry,
    };
  }
  return {
    contentId: plan.cid,
    ...(plan.tokenUrl ? { tokenUrl: plan.tokenUrl } : { customDataUrl: plan.customDataUrl }),
    licenseServer: { [plan.keySystem]: plan.licenseUrl },
    header: plan.header,
    retry,
  };
}

/** The timeline's steps from the handle's events, whichever player it is attached to. */
function followAuth(auth: AuthHandle, step: (step: Step) => void): void {
  let pendingAnswers = 0;
  for (const name of AUTH_EVENTS) {
    auth.on(name, (event) => {
      // Shaka reports a refused license request twice (the HTTP status, then the failure): one row.
      if (name === 'licenseRequestSent') pendingAnswers++;
      if (name === 'licenseAnswered') {
        if (pendingAnswers === 0) return;
        pendingAnswers--;
      }
      step(playerStep({ name, event } as Parameters<typeof playerStep>[0], Date.now()));
    });
  }
}

function watchFirstFrame(video: HTMLVideoElement, firstFrame: (at: number) => void): void {
  const onFrame = () => firstFrame(Date.now());
  if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(onFrame);
  else video.addEventListener('playing', onFrame, { once: true });
}

/**
 * One play attempt: a fresh player of the plan's kind on `video`, with the license auth of the plan
 * attached; what differs per player is in `players/`.
 */
export function startSession(
  video: HTMLVideoElement,
  plan: PlayPlan,
  callbacks: SessionCallbacks,
): PlaySession {
  // A failure can arrive after the manifest loaded, while play() waits for a key.
  let stop: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (stop = reject));
  failed.catch(() => undefined);
  const fail = (error: unknown) => {
    callbacks.failed(error);
    stop(error);
  };

  const attached: Promise<AttachedPlayer> = PLAYER_PARTS[plan.player]().then((attach) =>
    attach(video, plan, authOptions(plan), fail),
  );
  const loaded = (async () => {
    const player = await attached;
    followAuth(player.auth, callbacks.step);
    const { renewed } = callbacks;
    if (renewed) player.auth.on('licenseRenewed', renewed);
    watchFirstFrame(video, callbacks.firstFrame);
    await Promise.race([player.load(), failed]);
    await Promise.race([video.play(), failed]);
  })();

  return {
    loaded,
    async destroy() {
      const player = await attached.catch(() => undefined);
      player?.auth.detach();
      await player?.destroy();
    },
  };
}
