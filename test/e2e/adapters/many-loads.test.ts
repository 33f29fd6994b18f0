// A catalogue page on Shaka for a long while: 1,000 titles preloaded one after the other, each
// with its own license, in Chromium with ClearKey against the emulator. What the handle holds stays
// bounded (read through its closures, as the debugger reads them) and so does the page's heap.
import type { FlowEvent } from '@multidrm/emulator';
import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import {
  heapUsedAfterGc,
  heldCollections,
  type HeldCollection,
} from '../support/held-collections.ts';
import { SAMPLE } from '../support/site.ts';
import { manifestOf, startFresh, useAdapterSession } from './adapter-session.ts';

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

const TITLES = Array.from({ length: 1000 }, (_, i) => `catalogue-title-${i}`);
const FIRST = 100;
/** The most any one collection of the handle may hold (its token cache keeps 32 tokens). */
const MOST_HELD = 64;
/**
 * The page's heap may grow this much from the 100th to the 1,000th title: 2.4 MiB measured (the
 * test page's own records of each license, Shaka's and DevTools' buffers); a preload's manifest
 * and segments kept alive per title would pass it.
 */
const HEAP_GROWTH = 8 * 1024 * 1024;

const issuedCids = (flow: FlowEvent[]) =>
  flow.flatMap((e) => (e.type === 'license-issued' ? [e.cid] : []));
const total = (held: HeldCollection[]) => held.reduce((sum, c) => sum + c.size, 0);
const largest = (held: HeldCollection[]) =>
  held.reduce<HeldCollection | undefined>((a, c) => (a && a.size >= c.size ? a : c), undefined);

describe.skipIf(skip)('1,000 titles on one Shaka player', () => {
  // Every title is the sample under a cid of its own: each license is asked and issued for it.
  const session = useAdapterSession({
    keys: Object.fromEntries(TITLES.map((cid) => [cid, { kid: SAMPLE.kid, key: SAMPLE.key }])),
  });

  test('each preload sends its own token; what the handle holds and the heap stay bounded', async () => {
    const { page, flow } = await startFresh(session, 'shaka', {
      options: {
        name: TITLES[0],
        tokenUrl: `${session.site.url}/token`,
        licenseServer: { 'org.w3.clearkey': session.emulator.licenseUrl },
      },
    });
    const manifestUrl = manifestOf(session, 'shaka', 'content');
    // The app's player stops: from here the handle sees the preloads only.
    await page.stop('shaka');
    const handle = "globalThis.adapters.handleOf('shaka')";

    await page.shaka('shaka', { preloadEach: { cids: TITLES.slice(0, FIRST), manifestUrl } });
    const heldAtFirst = await heldCollections(page.page, handle);
    const heapAtFirst = await heapUsedAfterGc(page.page);
    await page.shaka('shaka', { preloadEach: { cids: TITLES.slice(FIRST), manifestUrl } });
    const heldAtEnd = await heldCollections(page.page, handle);
    const heapAtEnd = await heapUsedAfterGc(page.page);

    expect(issuedCids(flow()).slice(-TITLES.length)).toEqual(TITLES);
    // The walk reached the handle's state: the token cache is full at its 32.
    expect(heldAtEnd.map((c) => c.size)).toContain(32);
    const most = largest(heldAtEnd);
    expect(most?.size, `the largest collection: ${JSON.stringify(most)}`).toBeLessThanOrEqual(
      MOST_HELD,
    );
    // Nothing the handle keeps grows with the titles once its bounds are reached.
    expect(total(heldAtEnd), JSON.stringify({ heldAtFirst, heldAtEnd })).toBeLessThanOrEqual(
      total(heldAtFirst),
    );
    const growth = `${((heapAtEnd - heapAtFirst) / 2 ** 20).toFixed(1)} MiB`;
    expect(heapAtEnd - heapAtFirst, `heap growth ${growth}`).toBeLessThan(HEAP_GROWTH);
  }, 240_000);
});
