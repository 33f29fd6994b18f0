import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createCustomData } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Dialect, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import { allowJson, CID, JSON_SITE, startTestGateway, type TestGateway } from './helpers.ts';

// Custom data is AES-256-CBC with a fixed IV and no MAC. If the emulator answered bad padding
// differently from a padding that checks out but hides no JSON, a client could decrypt any custom
// data of the site byte by byte (the padding oracle: ~128 requests per byte). These tests play that
// attacker over HTTP and check that every kind of custom-data failure gets the same answer.

const IV = Buffer.from('0123456789abcdef', 'ascii');
const siteKey = Buffer.from(JSON_SITE.siteKey, 'utf8');
let gateway: TestGateway;
const emulators: Partial<Record<Dialect, RunningEmulator>> = {};
const events: FlowEvent[] = [];

beforeAll(async () => {
  gateway = await startTestGateway(JSON_SITE.siteKey, 'json', (r) => allowJson(r));
  for (const dialect of ['service', 'explain'] as const) {
    const emulator = await startEmulator({
      dialect,
      sites: [{ ...JSON_SITE, gatewayUrl: gateway.url }],
    });
    emulator.events.on((e) => events.push(e));
    emulators[dialect] = emulator;
  }
});
afterAll(async () => {
  for (const emulator of Object.values(emulators)) await emulator.close();
  await gateway.close();
});

/** Custom data whose envelope is right and whose `data` is the given text. */
const withData = (data: string) =>
  Buffer.from(JSON.stringify({ drm_type: 'Widevine', site_id: JSON_SITE.siteId, data })).toString(
    'base64',
  );

const encryptBytes = (plain: Buffer, padding = true) => {
  const cipher = createCipheriv('aes-256-cbc', siteKey, IV);
  cipher.setAutoPadding(padding);
  return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
};

/** Whether the site would find valid PKCS#7 padding in `ciphertext` (the test knows the key). */
function paddingIsValid(ciphertext: Buffer): boolean {
  const decipher = createDecipheriv('aes-256-cbc', siteKey, IV);
  try {
    Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    return true;
  } catch {
    return false;
  }
}

interface Answer {
  requestId: string;
  /** Status, headers that are not per request, and body: what the client can tell apart. */
  shape: string;
}

async function send(dialect: Dialect, header: string): Promise<Answer> {
  const response = await fetch(`${emulators[dialect]?.url}/ri/licenseManager.do`, {
    method: 'POST',
    headers: { 'x-drm-custom-data': header },
    body: JSON.stringify({ kids: ['ABEiM0RVZneImaq7zN3u_w'], type: 'temporary' }),
  });
  const headers = [...response.headers]
    .filter(([name]) => !['x-drm-request-id', 'date', 'keep-alive', 'connection'].includes(name))
    .map(([name, value]) => `${name}: ${value}`)
    .sort();
  return {
    requestId: response.headers.get('x-drm-request-id') ?? '',
    shape: `${response.status}\n${headers.join('\n')}\n\n${await response.text()}`,
  };
}

const stepOf = (requestId: string) => {
  const denied = events.find((e) => e.requestId === requestId && e.type === 'license-denied');
  return denied?.type === 'license-denied' ? denied.facts?.['step'] : undefined;
};

describe.each(['service', 'explain'] as const)('custom data failures, %s dialect', (dialect) => {
  it('a padding-oracle attacker on the last byte of a block learns nothing: all 256 answers are byte-identical', async () => {
    // The block to attack: the first ciphertext block of real custom data of the site.
    const real = createCustomData({
      ...JSON_SITE,
      drmType: 'Widevine',
      userId: 'victim-user',
      cid: CID,
    });
    const data = JSON.parse(Buffer.from(real, 'base64').toString()) as { data: string };
    const target = Buffer.from(data.data, 'base64').subarray(0, 16);
    const prefix = randomBytes(16);

    const answers = new Map<number, Answer>();
    const validPadding: number[] = [];
    for (let guess = 0; guess < 256; guess++) {
      prefix[15] = guess;
      const crafted = Buffer.concat([prefix, target]);
      if (paddingIsValid(crafted)) validPadding.push(guess);
      answers.set(guess, await send(dialect, withData(crafted.toString('base64'))));
    }

    // The probe did reach both kinds of failure: padding that checks out and padding that does not.
    expect(validPadding.length).toBeGreaterThan(0);
    expect(validPadding.length).toBeLessThan(256);
    const steps = new Set([...answers.values()].map((a) => stepOf(a.requestId)));
    expect(steps.has('bad PKCS#7 padding')).toBe(true);
    expect(steps.size).toBeGreaterThan(1);

    // The attacker looks for the guesses whose answer stands out: there are none.
    const byShape = new Map<string, number[]>();
    for (const [guess, answer] of answers) {
      byShape.set(answer.shape, [...(byShape.get(answer.shape) ?? []), guess]);
    }
    const standingOut = [...byShape.values()].filter((guesses) => guesses.length < 256);
    expect(standingOut).toEqual([]);
    expect(byShape.size).toBe(1);
  });

  it('bad base64, partial blocks, bad padding, not UTF-8, not JSON and a wrong schema get one answer', async () => {
    const kinds: Record<string, string> = {
      'data is not standard base64': 'not base64!',
      'data is not a whole number of AES blocks': Buffer.alloc(20, 7).toString('base64'),
      'bad PKCS#7 padding': encryptBytes(Buffer.alloc(16, 0), false),
      'plaintext is not UTF-8': encryptBytes(Buffer.from([0xff, 0xfe, 0xfd, 0x80])),
      'plaintext is not JSON': encryptBytes(Buffer.from('hello, gateway')),
      'plaintext breaks the {user_id, cid, oid} schema': encryptBytes(
        Buffer.from('{"user":"x","cid":"y"}'),
      ),
    };
    const answers: Answer[] = [];
    for (const [step, data] of Object.entries(kinds)) {
      const answer = await send(dialect, withData(data));
      // Each kind is a different failure inside the emulator, and its events say which...
      expect(stepOf(answer.requestId)).toBe(step);
      answers.push(answer);
    }
    // ...and custom data made with another site key fails the same way from the outside.
    const foreign = createCustomData({
      ...JSON_SITE,
      siteKey: 'Z'.repeat(32),
      drmType: 'Widevine',
      userId: 'u',
      cid: CID,
    });
    answers.push(await send(dialect, foreign));

    const shapes = new Set(answers.map((a) => a.shape));
    expect(shapes.size).toBe(1);
    const [shape] = [...shapes];
    if (dialect === 'service') {
      expect(shape).toMatch(/^200\n/);
      expect(shape).toContain('"errorCode":"7008"');
    } else {
      expect(shape).toMatch(/^403\n/);
      expect(shape).toContain('"error_code":"DECRYPT_FAILED"');
    }
    expect(gateway.requests).toEqual([]);
  });
});
