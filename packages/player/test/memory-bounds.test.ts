// A page that plays, preloads and fails over 1,000 titles keeps what the handle holds bounded: the
// tokens it caches, the preloads and downloads left open, and the init data Shaka's failure
// callback counts retries for.
import { describe, expect, test } from 'vitest';
import { createEngine } from '../src/engine/engine.ts';
import { resolveOptions } from '../src/engine/options.ts';
import type { LoadSession } from '../src/engine/session.ts';
import type { TokenParams } from '../src/engine/site-client.ts';
import { createFailureCallback } from '../src/shaka/failure-callback.ts';
import type { DrmSessionMetadata, ShakaError } from '../src/shaka/shaka-types.ts';

const engine = () =>
  createEngine(resolveOptions({ getToken: async ({ cid }: TokenParams) => `token-of-${cid}` }));

describe('1,000 titles on one handle', () => {
  test('1,000 loads one after the other: 32 tokens kept, the newest; one load open', async () => {
    const e = engine();
    const loads: LoadSession[] = [];
    for (let i = 0; i < 1000; i++) {
      e.loads.name(`cid-${i}`);
      const load = e.loads.started();
      loads.push(load);
      await e.getToken(`cid-${i}`, 'Widevine', load.signal);
    }
    expect(loads.filter((load) => !load.ended)).toEqual([loads[999]]);
    expect((await e.getToken('cid-999', 'Widevine')).source).toBe('cache');
    expect((await e.getToken('cid-968', 'Widevine')).source).toBe('cache');
    expect((await e.getToken('cid-967', 'Widevine')).source).toBe('network');
    e.destroy();
  });

  test('1,000 preloads never played: 32 stay open at most, the oldest end quietly; the player’s load stays', () => {
    const e = engine();
    const playing = e.loads.started();
    const preloads = Array.from({ length: 1000 }, (_, i) => e.open(`cid-${i}`));
    const open = preloads.filter((session) => !session.ended);
    expect(open).toHaveLength(31);
    expect(open[30]).toBe(preloads[999]);
    expect(preloads[0]?.movedOn).toBe(true); // dropped without an error
    expect(playing.ended).toBe(false);
    e.destroy();
    expect(preloads[999]?.ended).toBe(true);
  });

  test('a preload the player took is its load: never ended for the preloads after it', () => {
    const e = engine();
    const taken = e.open('cid-taken');
    e.loads.take(taken);
    expect(e.loads.started()).toBe(taken);
    for (let i = 0; i < 1000; i++) e.open(`cid-${i}`);
    expect(taken.ended).toBe(false);
  });

  test('Shaka’s failure callback counts retries for the last 64 init data only', () => {
    const retried: string[] = [];
    const metadata = (i: number) =>
      ({ sessionId: `s${i}`, initData: new Uint8Array([i >> 8, i & 255]) }) as DrmSessionMetadata;
    const callback = createFailureCallback(
      {
        // Several sessions: a failed one is dropped without an error event, and retried.
        getActiveSessionsMetadata: () => [metadata(0), metadata(1)],
        retryLicensing: async (m) => (retried.push(m.sessionId), true),
      },
      undefined,
      () => undefined,
      1,
    );
    const fail = (i: number) => {
      const error = { data: [null, metadata(i)], handled: false } as unknown as ShakaError;
      callback(error);
      return error.handled;
    };
    for (let i = 0; i < 1000; i++) expect(fail(i)).toBe(true);
    expect(fail(999)).toBe(false); // still counted: its one retry is used up
    expect(fail(936)).toBe(false);
    expect(fail(0)).toBe(true); // forgotten long ago: retried again
    expect(retried).toHaveLength(1001);
  });
});
