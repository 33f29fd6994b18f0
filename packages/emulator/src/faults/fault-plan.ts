import { describeIssues } from '@multidrm/site-kit';
import { z } from 'zod';
import { ConfigError } from '../config.ts';
import { EmulatorError, type EmulatorErrorCode } from '../errors.ts';
import type { FlowRecorder } from '../events.ts';
import { faultSchema, type Fault, type FaultInput, type FaultName } from './fault-schema.ts';

/** A fault and how many more requests it applies to (undefined: every one). */
export interface ActiveFault {
  fault: Fault;
  remaining: number | undefined;
}

/** Where in the flow a fault strikes: each kind has one stage, so that a request meets it once. */
export type FaultStage =
  'arrival' | 'authorize' | 'token' | 'custom-data' | 'new-stream' | 'renewal';

const STAGE: Record<FaultName, FaultStage> = {
  slow: 'arrival',
  'http-error': 'arrival',
  'unknown-site': 'authorize',
  refuse: 'authorize',
  'token-expired': 'token',
  'wrong-hash': 'token',
  'gateway-refusal': 'custom-data',
  'gateway-timeout': 'custom-data',
  'stream-limit': 'new-stream',
  'renewal-refused': 'renewal',
};

/** Validates faults as the config does: one sentence per problem, with its place. */
export function parseFaults(input: unknown, where = 'faults'): Fault[] {
  const parsed = z.array(faultSchema).safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      describeIssues(new z.ZodError([issue]), where),
    );
    throw new ConfigError(`Invalid faults: ${issues.join('; ')}.`, issues);
  }
  return parsed.data;
}

/**
 * The faults of one emulator, in order, with their counters. The first fault of a stage that is
 * still active applies, and counts one request; a `slow` fault delays and lets the others apply.
 */
export class FaultPlan {
  #active: ActiveFault[] = [];

  constructor(faults: readonly FaultInput[] = []) {
    this.set(faults);
  }

  /** Replaces every fault (their counters start afresh). */
  set(faults: readonly FaultInput[]): void {
    this.#active = parseFaults(faults).map((fault) => ({ fault, remaining: fault.times }));
  }

  /** Adds faults after the present ones. */
  add(...faults: FaultInput[]): void {
    this.#active.push(...parseFaults(faults).map((fault) => ({ fault, remaining: fault.times })));
  }

  /** Removes every active fault, those of the config included. */
  clear(): void {
    this.#active = [];
  }

  /** The faults still active, with how many requests each still applies to. */
  list(): readonly ActiveFault[] {
    return this.#active.map((a) => ({ fault: a.fault, remaining: a.remaining }));
  }

  /**
   * Takes the first active fault of `stage` (of `kinds` when given), counts it and reports it to
   * the request's flow as a `fault-injected` event.
   */
  strike(stage: FaultStage, flow: FlowRecorder, kinds?: readonly FaultName[]): Fault | undefined {
    const fault = this.take(stage, kinds);
    if (fault !== undefined) {
      const left = this.#active.find((a) => a.fault === fault)?.remaining;
      flow.emit({
        type: 'fault-injected',
        fault: fault.fault,
        stage,
        ...(fault.times === undefined ? {} : { remaining: left ?? 0 }),
        parameters: faultParameters(fault),
      });
    }
    return fault;
  }

  /** Takes the first active fault of `stage` (of `kinds` when given) and counts it. */
  take(stage: FaultStage, kinds?: readonly FaultName[]): Fault | undefined {
    // Asked five times per license; without faults, that must cost nothing.
    if (this.#active.length === 0) return undefined;
    const found = this.#active.find(
      (a) =>
        STAGE[a.fault.fault] === stage && (kinds === undefined || kinds.includes(a.fault.fault)),
    );
    if (found === undefined) return undefined;
    if (found.remaining !== undefined) {
      found.remaining -= 1;
      if (found.remaining <= 0) this.#active.splice(this.#active.indexOf(found), 1);
    }
    return found.fault;
  }
}

const REASONS: Partial<Record<FaultName, EmulatorErrorCode>> = {
  'token-expired': 'TOKEN_EXPIRED',
  'wrong-hash': 'HASH_MISMATCH',
  'unknown-site': 'UNKNOWN_SITE',
  'gateway-refusal': 'GATEWAY_DENIED',
  'gateway-timeout': 'GATEWAY_TIMEOUT',
  'stream-limit': 'STREAM_LIMIT_REACHED',
  'renewal-refused': 'LICENSE_EXPIRED',
};

const FIELDS: Partial<Record<FaultName, string>> = {
  'token-expired': 'timestamp',
  'wrong-hash': 'hash',
  'unknown-site': 'site_id',
  'stream-limit': 'playback_policy.max_stream_per_user',
  'renewal-refused': 'playback_policy.license_duration',
};

const STORIES: Record<FaultName, string> = {
  'token-expired': 'the token is refused as expired, whatever its timestamp',
  'wrong-hash': "the token's hash is refused as wrong, whatever it is",
  'unknown-site': 'the site ID is refused as unknown, whatever it is',
  'gateway-refusal': "the site's gateway is taken to have refused",
  'gateway-timeout': "the site's gateway is taken not to have answered in time (not called)",
  slow: '',
  'http-error': '',
  'stream-limit': "the user is taken to have reached the policy's concurrent stream limit",
  'renewal-refused': 'this renewal of a stream is refused as after the license duration',
  refuse: 'the request is refused',
};

/** The refusal a fault stands for: the same error a real decision throws, marked as injected. */
export function faultRefusal(fault: Fault, about: Record<string, unknown> = {}): EmulatorError {
  const code: EmulatorErrorCode =
    fault.fault === 'refuse' ? fault.reason : (REASONS[fault.fault] ?? 'INTERNAL_ERROR');
  const field = FIELDS[fault.fault];
  const story =
    fault.fault === 'gateway-refusal'
      ? `${STORIES[fault.fault]} with its code ${fault.siteCode}: ${fault.message}`
      : fault.fault === 'refuse'
        ? `${STORIES.refuse} with ${fault.reason}`
        : STORIES[fault.fault];
  return new EmulatorError(
    code,
    `Injected fault "${fault.fault}" (the emulator's faults, not a real check): ${story}.`,
    {
      ...about,
      ...(fault.fault === 'gateway-refusal'
        ? { siteErrorCode: fault.siteCode, siteErrorMessage: fault.message }
        : {}),
      fault: fault.fault,
      injected: true,
    },
    {
      ...(field === undefined ? {} : { field }),
      eventFacts: { fault: fault.fault },
      ...(fault.fault === 'gateway-refusal'
        ? { serviceMessage: JSON.stringify({ ERROR: fault.siteCode, MESSAGE: fault.message }) }
        : {}),
    },
  );
}

/** What a fault was set with beyond its name, for the `fault-injected` event. */
export function faultParameters(fault: Fault): Record<string, unknown> {
  const { fault: _name, times: _times, ...parameters } = fault;
  return parameters;
}
