// Shared by the test pages (main, adapters, msw-browser): vite bundles it into each.

/** What the browser tells of a frame it put on screen (the type check runs without the DOM lib). */
export interface PresentedFrame {
  /** The frame's presentation time in the media, in seconds. */
  mediaTime: number;
}

/** The few members of a <video> the frame check uses. */
export interface FrameVideo {
  currentTime: number;
  pause(): void;
  requestVideoFrameCallback(callback: (now: number, frame: PresentedFrame) => void): number;
  addEventListener(type: 'seeked', listener: () => void, options: { once: true }): void;
}

/** How far a presented frame may be from the asked time: under half a frame of the 24 fps clip. */
const SAME_FRAME_SECONDS = 0.02;

/** Where the video steps first: a time whose frame is not the asked one (the clip has 24 fps). */
const DETOUR_SECONDS = 0.5;
/** Only so that a page that never paints fails with what it showed instead of hanging. */
const GIVE_UP_MS = 20_000;

/**
 * Pauses, seeks to `seconds` and resolves once the frame there is on screen, with the media time of
 * the frame last put on screen: the caller checks it is the one asked for.
 */
export async function showFrame(video: FrameVideo, seconds: number): Promise<number> {
  const page = globalThis as unknown as {
    requestAnimationFrame(callback: () => void): number;
    setTimeout(callback: () => void, ms: number): number;
  };
  const seek = (to: number) => {
    const seeked = new Promise<void>((resolve) =>
      video.addEventListener('seeked', () => resolve(), { once: true }),
    );
    video.currentTime = to;
    return seeked;
  };
  video.pause();
  // The video first steps off the asked time, so that the frame at it is always painted anew: a
  // seek to the frame already shown paints nothing, and waiting a fixed while for a paint instead
  // picked a neighbouring frame when a busy CPU painted late.
  await seek(seconds - DETOUR_SECONDS);
  // A frame decoded before the pause, or the detour's, may still be put on screen after the seek
  // has been asked for; waiting for any frame let a screenshot catch one (a CI run saw 6.5 levels
  // off the clear frame where 0.7 is usual). Only a frame at the asked time ends the wait.
  let lastShown: number | undefined;
  const painted = new Promise<number>((resolve) => {
    const onFrame = (_now: number, frame: PresentedFrame) => {
      lastShown = frame.mediaTime;
      if (Math.abs(frame.mediaTime - seconds) < SAME_FRAME_SECONDS) resolve(frame.mediaTime);
      else video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  });
  await seek(seconds);
  const shown = await Promise.race([
    painted,
    new Promise<number>((resolve) =>
      page.setTimeout(() => resolve(lastShown ?? Number.NaN), GIVE_UP_MS),
    ),
  ]);
  await new Promise<void>((r) =>
    page.requestAnimationFrame(() => page.requestAnimationFrame(() => r())),
  );
  return shown;
}
