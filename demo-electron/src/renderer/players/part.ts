import type { EngineEvents, EngineOptions } from '@multidrm/player';
import type { PlayPlan } from '../../shared/contract.ts';

/** What the session uses of an adapter's handle: the engine's events, which every adapter has. */
export interface AuthHandle {
  on<K extends keyof EngineEvents>(name: K, listener: (event: EngineEvents[K]) => void): () => void;
  detach(): void;
}

/** A fresh player on the page's video, its adapter attached; nothing is loaded yet. */
export interface AttachedPlayer {
  auth: AuthHandle;
  /** Loads the plan's manifest; resolves once the player has read it. */
  load(): Promise<void>;
  /** Ends the player (its adapter's handle is detached before). */
  destroy(): Promise<void>;
}

/**
 * What differs per player in a play session: how the player is made, given its adapter and the
 * manifest, how it reports a failure (`fail`, with the player's own error) and how it ends.
 */
export type AttachPlayer = (
  video: HTMLVideoElement,
  plan: PlayPlan,
  auth: EngineOptions,
  fail: (error: unknown) => void,
) => Promise<AttachedPlayer>;
