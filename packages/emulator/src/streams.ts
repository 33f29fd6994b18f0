import { EmulatorError } from './errors.ts';
import { licenseDuration, type EffectivePolicy } from './policy.ts';

/**
 * The stream model (README, "Streams and durations"). A stream is one playback of one content by one
 * user: site + user ID + cid + stream ID, where the stream ID is what the player sends in query
 * parameter `stream_id` or header `x-drm-stream-id` (its playback session), or empty. A license
 * request for a stream that is still counted is a renewal; any other starts a new stream.
 *
 * A stream counts while it renews in time: until its last license + its renewal interval
 * (renewal_duration, else renewalIntervalSeconds) + streamGraceSeconds. Then it is forgotten.
 * - max_stream_per_user: a new stream is refused (6003) while the user has that many counted streams.
 * - license_duration (v1: duration): counts from the stream's first license; a renewal after it is
 *   refused (8711). A forgotten stream starts afresh.
 * - playback_duration and rental_duration: count from the first license of user + cid in this
 *   emulator's life ("first playback"); any license after is refused (8711).
 * 0 means no limit, as in the license policies of the DRMs.
 */
export interface StreamIdentity {
  siteId: string;
  userId: string;
  cid: string;
  streamId: string;
}

export interface StreamOptions {
  graceSeconds: number;
  defaultIntervalSeconds: number;
  /** Bound on remembered users and user + cid pairs; the oldest go first. */
  maxEntries?: number;
}

export interface StreamDecision {
  identity: StreamIdentity;
  /** The stream was still counted: this request renews it. */
  renewal: boolean;
  /** Counted streams of the user, this one included, once the license is issued. */
  activeStreams: number;
  /** Seconds the stream keeps counting without a renewal. */
  countsForSeconds: number;
}

interface Stream {
  firstMs: number;
  lastMs: number;
  intervalSeconds: number;
}

export class StreamRegistry {
  readonly #options: Required<StreamOptions>;
  /** user key -> stream key -> stream */
  readonly #streams = new Map<string, Map<string, Stream>>();
  /** user + cid key -> first license */
  readonly #firstLicense = new Map<string, number>();

  constructor(options: StreamOptions) {
    this.#options = { maxEntries: 10_000, ...options };
  }

  /** Checks the request against the durations and the stream limit; records nothing. */
  check(identity: StreamIdentity, policy: EffectivePolicy, nowMs: number): StreamDecision {
    const first = this.#firstLicense.get(entitlementKey(identity));
    for (const name of ['playback_duration', 'rental_duration'] as const) {
      const limit = policy[name];
      if (first !== undefined && limit !== undefined && limit > 0) {
        overIfPast(
          name,
          first,
          limit,
          nowMs,
          `the first license of user "${identity.userId}" for cid "${identity.cid}"`,
        );
      }
    }
    const streams = this.#active(userKey(identity), nowMs);
    const key = streamKey(identity);
    const stream = streams?.get(key);
    const duration = licenseDuration(policy);
    if (stream !== undefined && duration !== undefined && duration > 0) {
      overIfPast(
        policy.duration === undefined ? 'license_duration' : 'duration',
        stream.firstMs,
        duration,
        nowMs,
        'the first license of this stream',
      );
    }
    const others = (streams?.size ?? 0) - (stream === undefined ? 0 : 1);
    const max = policy.max_stream_per_user;
    if (stream === undefined && max !== undefined && max > 0 && others >= max) {
      throw new EmulatorError(
        'STREAM_LIMIT_REACHED',
        `User "${identity.userId}" of site "${identity.siteId}" already has ${others === 1 ? '1 stream that renews' : `${others} streams that renew`} in time, and the policy allows ${max} (max_stream_per_user): stop one, or wait until it has not renewed for its renewal interval plus ${this.#options.graceSeconds} s.`,
        { userId: identity.userId, activeStreams: others, max_stream_per_user: max },
        { field: 'playback_policy.max_stream_per_user' },
      );
    }
    return {
      identity,
      renewal: stream !== undefined,
      activeStreams: others + 1,
      countsForSeconds: this.#intervalOf(policy) + this.#options.graceSeconds,
    };
  }

  /** Records the issued license: the stream (re)starts counting now. */
  commit(decision: StreamDecision, policy: EffectivePolicy, nowMs: number): void {
    const { identity } = decision;
    const entitlement = entitlementKey(identity);
    if (!this.#firstLicense.has(entitlement)) {
      this.#firstLicense.set(entitlement, nowMs);
      bound(this.#firstLicense, this.#options.maxEntries);
    }
    const user = userKey(identity);
    const streams = this.#active(user, nowMs) ?? new Map<string, Stream>();
    const key = streamKey(identity);
    const firstMs = streams.get(key)?.firstMs ?? nowMs;
    streams.delete(key);
    streams.set(key, { firstMs, lastMs: nowMs, intervalSeconds: this.#intervalOf(policy) });
    // Re-inserted, so that the map's order is the order of last use and bound() drops the oldest.
    this.#streams.delete(user);
    this.#streams.set(user, streams);
    bound(this.#streams, this.#options.maxEntries);
  }

  #intervalOf(policy: EffectivePolicy): number {
    const renewal = policy.renewal_duration;
    return renewal !== undefined && renewal > 0 ? renewal : this.#options.defaultIntervalSeconds;
  }

  /** The user's counted streams; forgets those that stopped renewing. */
  #active(user: string, nowMs: number): Map<string, Stream> | undefined {
    const streams = this.#streams.get(user);
    if (streams === undefined) return undefined;
    const graceMs = this.#options.graceSeconds * 1000;
    for (const [key, s] of streams) {
      if (nowMs > s.lastMs + s.intervalSeconds * 1000 + graceMs) streams.delete(key);
    }
    if (streams.size === 0) this.#streams.delete(user);
    return streams.size === 0 ? undefined : streams;
  }
}

function overIfPast(
  name: string,
  startMs: number,
  seconds: number,
  nowMs: number,
  since: string,
): void {
  const endMs = startMs + seconds * 1000;
  if (nowMs <= endMs) return;
  throw new EmulatorError(
    'LICENSE_EXPIRED',
    `The ${name} of ${seconds} s is over: it counts from ${since}, ${Math.round((nowMs - startMs) / 1000)} s ago. The site must grant a longer ${name}.`,
    { over: name, seconds, startedSecondsAgo: Math.round((nowMs - startMs) / 1000) },
    { field: `playback_policy.${name}` },
  );
}

const userKey = (s: StreamIdentity) => JSON.stringify([s.siteId, s.userId]);
const entitlementKey = (s: StreamIdentity) => JSON.stringify([s.siteId, s.userId, s.cid]);
const streamKey = (s: StreamIdentity) => JSON.stringify([s.cid, s.streamId]);

function bound(map: Map<string, unknown>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
