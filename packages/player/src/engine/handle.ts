import type { EngineEvents } from './events.ts';

/**
 * What to prefetch for; each defaults to what is known (`contentId` of the options, the key system
 * already in use or the only one configured).
 */
export interface PrefetchOptions {
  keySystem?: string;
  contentId?: string;
}

/** What `attachLicenseAuth` of every adapter returns. */
export interface LicenseAuthHandle<E extends EngineEvents = EngineEvents> {
  /**
   * Fetches the token for the coming license request now, so it overlaps manifest loading.
   * Resolves `true` once a token is ready, `false` when the key system or cid is not known yet.
   */
  prefetch(options?: PrefetchOptions): Promise<boolean>;
  /**
   * Names the asset the player loads next: call it right before the player's own load call
   * (Shaka `load()`, hls.js `loadSource()`, dash.js `attachSource()`, video.js `src()`). Its cid
   * goes with that load's prefetch and every license request of that load (and of the loads after
   * it, until the app names another). When the player loads the next asset or unloads, what was
   * under way for the previous one is dropped without an error. Until the app names one,
   * `contentId` / `getContentId` decide.
   */
  load(contentId: string): void;
  /**
   * Forgets every token the handle holds, and aborts the token fetches under way: call it when the
   * user on the page changes (sign-out, a profile switch, another account), else the next license
   * requests reuse the previous user's tokens while they last. Every later license request fetches
   * its token again, with the cookies the page has then; one that was waiting for an aborted fetch
   * asks again too, and reports no error. Loads, hooks and listeners stay.
   *
   * ```ts
   * async function signOut() {
   *   await fetch('/logout', { method: 'POST' });
   *   auth.clearTokens();
   * }
   * ```
   */
  clearTokens(): void;
  /** Removes every hook and listener, aborts what is under way and undoes the configuration it added. */
  detach(): void;
  /** Calls `listener` for every later event `name`; returns the function that stops it. */
  on<K extends keyof E>(name: K, listener: (event: E[K]) => void): () => void;
}
