import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FAULT_NAMES, faultSchema } from '@multidrm/emulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseArguments } from '../src/main/contract-schemas.ts';
import type { PlayPlan, PlayRequest, Result } from '../src/shared/contract.ts';
import { FAULT_MENU } from '../src/shared/faults.ts';
import { playRequest } from './support/play-request.ts';
import { CONTENT_DIR, pageHeaders, startTestStack } from './support/stack.ts';

// The faults menu speaks the emulator's fault vocabulary: the same data as the msw kit's tests and
// the CLI's config file.

let web: Awaited<ReturnType<typeof startTestStack>>;
/** The page's Origin and session cookie: only the page gets tokens. */
let asPage: Record<string, string>;
let keys: { cid: string; kid: string };
beforeAll(async () => {
  web = await startTestStack('web');
  asPage = await pageHeaders(web.stack);
  keys = JSON.parse(await readFile(join(CONTENT_DIR, 'keys.json'), 'utf8'));
});
afterAll(() => web?.close());

// The tests' usual Play, of the content the fixtures hold keys for.
const request = (over: Partial<PlayRequest> = {}): PlayRequest =>
  playRequest({ cid: keys.cid, ...over });

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The player's part: a token from the site, then the license request with it. */
async function license(plan: PlayPlan): Promise<Record<string, unknown>> {
  const site = await fetch(plan.tokenUrl as string, {
    method: 'POST',
    headers: { ...asPage, 'content-type': 'application/json' },
    body: JSON.stringify({ cid: plan.cid, drm_type: 'Widevine' }),
  });
  const kid = Buffer.from(keys.kid, 'hex').toString('base64url');
  const answer = await fetch(plan.licenseUrl, {
    method: 'POST',
    headers: { [plan.header]: await site.text() },
    body: JSON.stringify({ kids: [kid], type: 'temporary' }),
  });
  return (await answer.json()) as Record<string, unknown>;
}

describe('the faults menu', () => {
  test('has one entry for each fault of the vocabulary, each valid by its schema', () => {
    expect(Object.keys(FAULT_MENU).sort()).toEqual([...FAULT_NAMES].sort());
    for (const [name, entry] of Object.entries(FAULT_MENU)) {
      expect(faultSchema.parse(entry.fault).fault).toBe(name);
    }
  });

  test('a play with a fault gets its refusal, and the next play without one gets the license', async () => {
    const faulted = value(
      await web.stack.api.preparePlay(request({ fault: FAULT_MENU['unknown-site'].fault })),
    );
    expect(await license(faulted)).toMatchObject({ errorCode: '1003', reason: 'UNKNOWN_SITE' });
    const clean = value(await web.stack.api.preparePlay(request()));
    expect(await license(clean)).toHaveProperty('keys');
  });

  test('a fault sent by hand that breaks the vocabulary is refused naming the Fault field', () => {
    const parsed = parseArguments('preparePlay', [
      request({ fault: { fault: 'slow', ms: -5 } as never }),
    ]);
    expect(parsed.ok ? '' : parsed.error.message).toBe('Fault: must not be negative.');
  });
});
