// Shared by the test pages (main, adapters, msw-browser): vite bundles it into each.

/** The few members of a <video> the frame check uses (the type check runs without the DOM lib). */
export interface FrameVideo {
  currentTime: number;
  pause(): void;
  requestVideoFrameCallback(callback: () => void): number;
  addEventListener(type: 'seeked', listener: () => void, options: { once: true }): void;
}

/** Pauses, seeks to `seconds` and resolves once that frame is painted, with the time reached. */
export async function showFrame(video: FrameVideo, seconds: number): Promise<number> {
  const page = globalThis as unknown as { requestAnimationFrame(callback: () => void): number };
  video.pause();
  const painted = new Promise<void>((resolve) => {
    video.requestVideoFrameCallback(() => resolve());
  });
  const seeked = new Promise<void>((resolve) =>
    video.addEventListener('seeked', () => resolve(), { once: true }),
  );
  video.currentTime = seconds;
  await seeked;
  // A frame callback may have fired for the frame before the seek; the timeout covers a seek to
  // the frame already shown, which paints nothing new.
  await Promise.race([painted, new Promise((r) => setTimeout(r, 1000))]);
  await new Promise<void>((r) =>
    page.requestAnimationFrame(() => page.requestAnimationFrame(() => r())),
  );
  return video.currentTime;
}
