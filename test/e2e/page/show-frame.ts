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
/** Animation frames the asked frame must stay on screen, and seeks to it before giving up. */
const SETTLE_FRAMES = 10;
const MAX_SEEKS = 5;

/**
 * Pauses, seeks to `seconds` and resolves once the frame there is on screen and stays there, with
 * the media time of the frame last put on screen: the caller checks it is the one asked for.
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
  const animationFrames = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise<void>((r) => page.requestAnimationFrame(r));
  };
  const atAsked = (time: number) => Math.abs(time - seconds) < SAME_FRAME_SECONDS;
  // Every frame the browser puts on screen from here on: the last one is what a screenshot shows.
  let lastShown: number | undefined;
  let onShown: (time: number) => void = () => undefined;
  let watching = true;
  const onFrame = (_now: number, frame: PresentedFrame) => {
    lastShown = frame.mediaTime;
    onShown(frame.mediaTime);
    if (watching) video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
  video.pause();
  for (let seeks = 0; seeks < MAX_SEEKS; seeks++) {
    // When the asked frame may be the one shown already (a seek to it paints nothing), the video
    // first steps off it, so that it is painted anew: waiting a fixed while for a paint instead
    // picked a neighbouring frame when a busy CPU painted late. Otherwise no step: its frame too
    // could come on screen late.
    if (seeks > 0 || Math.abs(video.currentTime - seconds) < DETOUR_SECONDS) {
      await seek(seconds - DETOUR_SECONDS);
    }
    // A frame decoded before the pause or for the detour may still be put on screen after the
    // seek has been asked for (a CI run saw 6.5 levels off the clear frame where 0.7 is usual;
    // one busy core showed the detour's frame after the asked one): only the asked frame ends the
    // wait, and it must stay on screen for a while, else the video seeks to it again.
    const painted = new Promise<void>((resolve) => {
      onShown = (time) => atAsked(time) && resolve();
    });
    await seek(seconds);
    const shown = await Promise.race([
      painted.then(() => true),
      new Promise<boolean>((resolve) => page.setTimeout(() => resolve(false), GIVE_UP_MS)),
    ]);
    if (!shown) break;
    let moved = false;
    onShown = (time) => {
      if (!atAsked(time)) moved = true;
    };
    await animationFrames(SETTLE_FRAMES);
    if (!moved && lastShown !== undefined && atAsked(lastShown)) break;
  }
  watching = false;
  onShown = () => undefined;
  return lastShown ?? Number.NaN;
}
