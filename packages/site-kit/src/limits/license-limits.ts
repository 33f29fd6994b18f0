import * as z from 'zod';
import { SiteKitError } from '../errors.ts';
import type { SiteRefusal } from '../http/site-endpoint.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import { faultOptions } from '../store/fault-options.ts';
import { storeDeadline, type OutagePolicy, type StoreOutageEvent } from '../store/deadline.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { deviceKey, userKey, type SharedStore } from '../store/store.ts';
import { LIMIT_MESSAGES, resolveLimitCodes, type LimitRefusalKind } from './refusals.ts';

/** Options of {@link createLicenseLimits}: the store, the limits, the outage policy, the refusals. */
export interface LicenseLimitsOptions {
  /** Where the counts live: default one process's memory; a Redis store for many servers. */
  store?: SharedStore;
  /** Before every key; default "multidrm:". */
  keyPrefix?: string;
  /** Streams one user may play at once; 0 (default): no limit. */
  maxStreams?: number;
  /** How often a player renews its license; default 60 s (the emulator's default). */
  renewalIntervalSeconds?: number;
  /** A stream counts this long past a missed renewal; default 30 s (the emulator's). */
  graceSeconds?: number;
  /** Devices one user may have registered; 0 (default): no limit. */
  maxDevices?: number;
  /** A device stays registered this long after its last license; default 30 days. */
  deviceSeconds?: number;
  /** When the user is at a limit: refuse the new stream or device (default), or drop the oldest. */
  evict?: 'refuse' | 'oldest';
  /** How long a decision may wait for the store; default 250 ms. */
  deadlineMs?: number;
  /** Past the deadline or on a store error: let the license through (default) or refuse it. */
  onOutage?: OutagePolicy;
  /** The gateway answer's codes, by kind (see LIMIT_ERROR_CODES). */
  codes?: Partial<Record<LimitRefusalKind, string>>;
  /** The sentences the player shows, by kind (see LIMIT_MESSAGES). */
  messages?: Partial<Record<LimitRefusalKind, string>>;
  /** Refusals, evictions and outages, for logs and metrics; never a key. */
  onEvent?: (event: LimitsEvent) => void;
  /** The clock, ms; default Date.now. The servers of a site share it as far as NTP keeps them. */
  now?: () => number;
}

/** One license (or renewal) to decide: who, on what device, for what content. */
export interface LicenseAsk {
  userId: string;
  /** The gateway request's `device_id`, or the proxy's device info; none: devices are not counted. */
  deviceId?: string;
  cid?: string;
  /**
   * What names the stream, if the site has it (a playback session). Default: device + cid, so
   * that a renewal from the same device for the same content is the same stream. Without either a
   * license is a new stream each time, which nothing renews.
   */
  streamId?: string;
}

/** What {@link LicenseLimits.check} decided: allowed (with the counts) or refused (in both answer shapes). */
export type LimitVerdict =
  | {
      allow: true;
      /** The stream was counted already: this license renews it. */
      renewal: boolean;
      /** Counted streams and devices of the user with this one (0 when not limited). */
      streams: number;
      devices: number;
      /** What `evict: 'oldest'` dropped to make room. */
      evicted: { streams: string[]; devices: string[] };
      /** True when the store did not answer and `onOutage: 'allow'` let it through. */
      unchecked: boolean;
    }
  | {
      allow: false;
      kind: LimitRefusalKind;
      /** The refusal as a gateway answer: return it from the gateway's `authorize`. */
      gateway: { allow: false; error_code: string; error_message: string };
      /** The refusal as the token endpoint's or the proxy's `authorize` answers it (403). */
      site: SiteRefusal;
    };

/** What the limits report to `onEvent`. */
export type LimitsEvent =
  | StoreOutageEvent
  | { type: 'limit-refused'; kind: LimitRefusalKind }
  | { type: 'limit-evicted'; streams: number; devices: number };

/** The limits and bans of one site, made by {@link createLicenseLimits}. */
export interface LicenseLimits {
  /**
   * Decides one license or renewal. Never waits past `deadlineMs` and never fails on the store (the
   * outage policy decides then); rejects only an ask that breaks its shape (INVALID_INPUT).
   */
  check(ask: LicenseAsk): Promise<LimitVerdict>;
  /** Stops counting a stream (the player stopped); true when it was counted. */
  endStream(ask: LicenseAsk): Promise<boolean>;
  /** From the next license or renewal, on every server sharing the store; `seconds`: for a while. */
  banUser(userId: string, options?: { seconds?: number }): Promise<void>;
  /** Lifts a user's ban, on every server sharing the store. */
  unbanUser(userId: string): Promise<void>;
  /** From the next license or renewal of the device, whoever's; `seconds`: for a while. */
  banDevice(deviceId: string, options?: { seconds?: number }): Promise<void>;
  /** Lifts a device's ban. */
  unbanDevice(deviceId: string): Promise<void>;
  /** Forgets a registered device of the user (a "remove this device" in the account page). */
  removeDevice(userId: string, deviceId: string): Promise<boolean>;
}

const count = (what: string) =>
  z
    .number({ error: mustBe(what) })
    .int('must be a whole number')
    .nonnegative('must be 0 or more');
const seconds = z.number({ error: mustBe('a number of seconds') }).positive('must be more than 0');

const optionsSchema = z.object({
  keyPrefix: z.string({ error: mustBe('a string') }).optional(),
  maxStreams: count('a number of streams').optional(),
  renewalIntervalSeconds: seconds.optional(),
  graceSeconds: z
    .number({ error: mustBe('a number of seconds') })
    .nonnegative('must be 0 or more')
    .optional(),
  maxDevices: count('a number of devices').optional(),
  deviceSeconds: seconds.optional(),
  evict: z.enum(['refuse', 'oldest'], { error: mustBe('"refuse" or "oldest"') }).optional(),
  ...faultOptions,
});

const ID = /^[\s\S]{1,512}$/;

/**
 * Stream and device limits and bans, decided over a shared store: the same answer on every server
 * of a site. Streams follow the emulator's model (its README, "Streams"): a stream counts until its
 * last license + the renewal interval + the grace; a license for a counted stream renews it.
 */
export function createLicenseLimits(options: LicenseLimitsOptions = {}): LicenseLimits {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, ''));
  const o = parsed.data;
  const store = options.store ?? createMemoryStore();
  const prefix = o.keyPrefix ?? 'multidrm:';
  const maxStreams = o.maxStreams ?? 0;
  const maxDevices = o.maxDevices ?? 0;
  const streamMs = ((o.renewalIntervalSeconds ?? 60) + (o.graceSeconds ?? 30)) * 1000;
  const deviceMs = (o.deviceSeconds ?? 30 * 86_400) * 1000;
  const evict = o.evict ?? 'refuse';
  const deadlineMs = o.deadlineMs ?? 250;
  const onOutage = o.onOutage ?? 'allow';
  const codes = resolveLimitCodes(options.codes);
  const messages = { ...LIMIT_MESSAGES, ...options.messages };
  const now = options.now ?? Date.now;
  const emit = (event: LimitsEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };

  const refuse = (kind: LimitRefusalKind): LimitVerdict => {
    emit({ type: 'limit-refused', kind });
    const message = messages[kind];
    return {
      allow: false,
      kind,
      gateway: { allow: false, error_code: codes[kind], error_message: message },
      site: { allow: false, status: 403, reason: message },
    };
  };

  async function decide(ask: LicenseAsk, nowMs: number): Promise<LimitVerdict> {
    const { userId, deviceId } = ask;
    const [userBan, deviceBan] = await Promise.all([
      store.get(userKey(prefix, userId, 'ban')),
      deviceId === undefined ? undefined : store.get(deviceKey(prefix, deviceId, 'ban')),
    ]);
    if (userBan !== undefined) return refuse('USER_BANNED');
    if (deviceBan !== undefined) return refuse('DEVICE_BANNED');
    let devices = { count: 0, evicted: [] as string[] };
    if (maxDevices > 0 && deviceId !== undefined) {
      const rule = { nowMs, untilMs: nowMs + deviceMs, limit: maxDevices, evict };
      const admitted = await store.admit(userKey(prefix, userId, 'devices'), deviceId, rule);
      if (!admitted.admitted) return refuse('DEVICE_LIMIT');
      devices = admitted;
    }
    let streams = { count: 0, evicted: [] as string[], renewed: false };
    if (maxStreams > 0) {
      const rule = { nowMs, untilMs: nowMs + streamMs, limit: maxStreams, evict };
      const admitted = await store.admit(userKey(prefix, userId, 'streams'), streamOf(ask), rule);
      if (!admitted.admitted) return refuse('STREAM_LIMIT');
      streams = admitted;
    }
    if (streams.evicted.length + devices.evicted.length > 0) {
      emit({
        type: 'limit-evicted',
        streams: streams.evicted.length,
        devices: devices.evicted.length,
      });
    }
    return {
      allow: true,
      renewal: streams.renewed,
      streams: streams.count,
      devices: devices.count,
      evicted: { streams: streams.evicted, devices: devices.evicted },
      unchecked: false,
    };
  }

  return {
    async check(ask) {
      checkAsk(ask);
      // Memory cannot stall: no timer for it.
      const outcome =
        store.kind === 'memory'
          ? { ok: true as const, value: await decide(ask, now()) }
          : await storeDeadline(deadlineMs, () => decide(ask, now()));
      if (outcome.ok) return outcome.value;
      emit({
        type: 'store-unavailable',
        decision: 'limits',
        cause: outcome.cause,
        reason: outcome.reason,
        outcome: onOutage === 'allow' ? 'allowed' : 'refused',
      });
      if (onOutage === 'refuse') return refuse('LIMITS_UNAVAILABLE');
      const none = { streams: [], devices: [] };
      return {
        allow: true,
        renewal: false,
        streams: 0,
        devices: 0,
        evicted: none,
        unchecked: true,
      };
    },
    async endStream(ask) {
      checkAsk(ask);
      return store.remove(userKey(prefix, ask.userId, 'streams'), streamOf(ask));
    },
    async banUser(userId, ban) {
      await store.set(userKey(prefix, checkId(userId, 'userId'), 'ban'), '1', banMs(ban));
    },
    async unbanUser(userId) {
      await store.delete(userKey(prefix, checkId(userId, 'userId'), 'ban'));
    },
    async banDevice(deviceId, ban) {
      await store.set(deviceKey(prefix, checkId(deviceId, 'deviceId'), 'ban'), '1', banMs(ban));
    },
    async unbanDevice(deviceId) {
      await store.delete(deviceKey(prefix, checkId(deviceId, 'deviceId'), 'ban'));
    },
    async removeDevice(userId, deviceId) {
      const key = userKey(prefix, checkId(userId, 'userId'), 'devices');
      return store.remove(key, checkId(deviceId, 'deviceId'));
    },
  };
}

// A new stream each time when nothing names it: unique, so nothing can renew it.
function streamOf(ask: LicenseAsk): string {
  if (ask.streamId !== undefined) return `s:${ask.streamId}`;
  if (ask.deviceId !== undefined && ask.cid !== undefined) return `d:${ask.deviceId}\n${ask.cid}`;
  return `n:${crypto.randomUUID()}`;
}

function checkAsk(ask: LicenseAsk): void {
  if (typeof ask !== 'object' || ask === null) {
    throw new SiteKitError('INVALID_INPUT', 'check: give { userId, deviceId?, cid?, streamId? }.');
  }
  checkId(ask.userId, 'userId');
  for (const name of ['deviceId', 'cid', 'streamId'] as const) {
    if (ask[name] !== undefined) checkId(ask[name], name);
  }
}

function checkId(value: unknown, name: string): string {
  if (typeof value !== 'string' || !ID.test(value)) {
    throw new SiteKitError('INVALID_INPUT', `${name}: must be a string of 1 to 512 characters.`);
  }
  return value;
}

function banMs(ban: { seconds?: number } | undefined): number | undefined {
  const s = ban?.seconds;
  if (s === undefined) return undefined;
  if (typeof s !== 'number' || !(s > 0) || !Number.isFinite(s)) {
    throw new SiteKitError('INVALID_INPUT', 'seconds: must be a number of seconds above 0.');
  }
  return s * 1000;
}
