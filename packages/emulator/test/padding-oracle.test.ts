import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { createCustomData, createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatEvent } from '../src/cli/run.ts';
import { startEmulator, type Dialect, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import {
  allowJson,
  CID,
  clearKeyRequest,
  JSON_SITE,
  KEY,
  KID,
  startTestGateway,
  TOKEN_SITE,
  type TestGateway,
} from './helpers.ts';

// Custom data and a token's policy are AES-256-CBC with a fixed IV and no MAC. If any channel told
// bad padding apart from a padding that checks out but hides no JSON (the answer, the events that
// `GET /events` streams, the log line the CLI prints for each event), anyone reading it could decrypt
// any custom data of the site byte by byte (~128 requests per byte), and anyone holding the access
// key the policy of any token with its content keys. These tests play that attacker over HTTP, with
// every channel in view, and check that it learns nothing. Each attack is 256 requests.

const IV = Buffer.from('0123456789abcdef', 'ascii');
let gateway: TestGateway;
const emulators: Partial<Record<Dialect, RunningEmulator>> = {};
const events: FlowEvent[] = [];

beforeAll(async () => {
  gateway = await startTestGateway(JSON_SITE.siteKey, 'json', (r) => allowJson(r));
  for (const dialect of ['service', 'explain'] as const) {
    const emulator = await startEmulator({
      dialect,
      sites: [{ ...JSON_SITE, gatewayUrl: gateway.url }, TOKEN_SITE],
      keys: { [CID]: [{ kid: KID, key: KEY }] },
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
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(JSON_SITE.siteKey), IV);
  cipher.setAutoPadding(padding);
  return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
};

/** Whether the site would find valid PKCS#7 padding in `ciphertext` (the test knows the key). */
function paddingIsValid(ciphertext: Buffer, siteKey: string): boolean {
  const decipher = createDecipheriv('aes-256-cbc', Buffer.from(siteKey), IV);
  try {
    Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Everything an attacker can see of one request, with what differs for every request anyway (its
 * ID, clock and elapsed time) taken out: the status, headers and body of the answer, the events of
 * the request as `GET /events` streams them, and the CLI's log lines for those events.
 */
async function send(dialect: Dialect, header: string): Promise<string> {
  const response = await fetch(`${emulators[dialect]?.url}/ri/licenseManager.do`, {
    method: 'POST',
    headers: { 'x-drm-custom-data': header },
    body: clearKeyRequest(KID),
  });
  const requestId = response.headers.get('x-drm-request-id') ?? '';
  const headers = [...response.headers]
    .filter(([name]) => !['x-drm-request-id', 'date', 'keep-alive', 'connection'].includes(name))
    .map(([name, value]) => `${name}: ${value}`)
    .sort();
  const answer = `${response.status}\n${headers.join('\n')}\n\n${await response.text()}`;
  const own = events.filter((e) => e.requestId === requestId);
  const streamed = own.map(({ requestId: _id, at: _at, elapsedMs: _ms, ...rest }) => rest);
  const logged = own.map((e) =>
    formatEvent(e)
      .replace(e.at, '<at>')
      .replace(requestId, '<id>')
      .replace(`+${e.elapsedMs}ms`, ''),
  );
  expect(own.length).toBeGreaterThan(0);
  return JSON.stringify({ answer, streamed, logged });
}

/** The guesses grouped by what the attacker saw: one group means the oracle said nothing. */
function byObservation(observed: Map<number, string>): number[][] {
  const groups = new Map<string, number[]>();
  for (const [guess, seen] of observed) groups.set(seen, [...(groups.get(seen) ?? []), guess]);
  return [...groups.values()];
}

describe.each(['service', 'explain'] as const)('custom data failures, %s dialect', (dialect) => {
  it('a padding-oracle attacker on the last byte of a block learns nothing from the answer, the events or the log', async () => {
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

    const observed = new Map<number, string>();
    const validPadding: number[] = [];
    for (let guess = 0; guess < 256; guess++) {
      prefix[15] = guess;
      const crafted = Buffer.concat([prefix, target]);
      if (paddingIsValid(crafted, JSON_SITE.siteKey)) validPadding.push(guess);
      observed.set(guess, await send(dialect, withData(crafted.toString('base64'))));
    }

    // The probe did reach both kinds of failure: padding that checks out and padding that does not.
    expect(validPadding.length).toBeGreaterThan(0);
    expect(validPadding.length).toBeLessThan(256);
    // The attacker looks for the guesses that stand out on any channel: there are none.
    expect(byObservation(observed)).toHaveLength(1);
  });

  it('bad base64, partial blocks, bad padding, not UTF-8, not JSON, a wrong schema and an empty cid look the same on every channel', async () => {
    const kinds: Record<string, string> = {
      'not base64': 'not base64!',
      'not whole blocks': Buffer.alloc(20, 7).toString('base64'),
      'bad padding': encryptBytes(Buffer.alloc(16, 0), false),
      // A bad padding whose whole decryption is schema-breaking JSON (0x20 is no pad byte).
      'bad padding, JSON': encryptBytes(Buffer.from('{"user":"x","cid":"y"}'.padEnd(32)), false),
      'not UTF-8': encryptBytes(Buffer.from([0xff, 0xfe, 0xfd, 0x80])),
      'not JSON': encryptBytes(Buffer.from('hello, gateway')),
      'wrong schema': encryptBytes(Buffer.from('{"user":"x","cid":"y"}')),
      // An empty cid must stop here too, not reach the gateway step.
      'empty cid': encryptBytes(Buffer.from('{"user_id":"x","cid":""}')),
    };
    const observed = new Map<number, string>();
    for (const [i, data] of Object.values(kinds).entries()) {
      observed.set(i, await send(dialect, withData(data)));
    }
    // Custom data made with another site key fails the same way from the outside.
    const foreign = createCustomData({
      ...JSON_SITE,
      siteKey: 'Z'.repeat(32),
      drmType: 'Widevine',
      userId: 'u',
      cid: CID,
    });
    observed.set(99, await send(dialect, foreign));

    expect(byObservation(observed)).toHaveLength(1);
    const { answer } = JSON.parse([...observed.values()][0] as string) as { answer: string };
    if (dialect === 'service') {
      expect(answer).toMatch(/^200\n/);
      expect(answer).toContain('"errorCode":"7008"');
    } else {
      expect(answer).toMatch(/^403\n/);
      expect(answer).toContain('"error_code":"DECRYPT_FAILED"');
    }
    expect(gateway.requests).toEqual([]);
  });
});

/** A v2 token for TOKEN_SITE with the given encrypted policy, hashed as an access-key holder can. */
function tokenWithPolicy(policy: string, timestamp: string): string {
  const fields = {
    drm_type: 'Widevine',
    site_id: TOKEN_SITE.siteId,
    user_id: 'attacker',
    cid: CID,
    policy,
  };
  const digest = hash('sha256', TOKEN_SITE.accessKey + Object.values(fields).join('') + timestamp);
  const token = { ...fields, timestamp, hash: Buffer.from(digest, 'hex').toString('base64') };
  return Buffer.from(JSON.stringify(token)).toString('base64');
}

describe('a v2 token policy', () => {
  it('an attacker holding the access key (not the site key) learns nothing about the policy from any channel', async () => {
    const issuer = createTokenIssuer(TOKEN_SITE);
    const real = issuer.issue({
      cid: CID,
      drmType: 'Widevine',
      policy: {
        policy_version: 2,
        external_key: {
          mpeg_cenc: [{ track_type: 'ALL', key_id: KID, key: KEY }],
        },
      },
    });
    const { policy } = JSON.parse(Buffer.from(real, 'base64').toString()) as { policy: string };
    const target = Buffer.from(policy, 'base64').subarray(0, 16);
    const prefix = randomBytes(16);
    // One timestamp for every token: the events name it, and it must not be what differs.
    const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;

    const observed = new Map<number, string>();
    const validPadding: number[] = [];
    for (let guess = 0; guess < 256; guess++) {
      prefix[15] = guess;
      const crafted = Buffer.concat([prefix, target]);
      if (paddingIsValid(crafted, TOKEN_SITE.siteKey)) validPadding.push(guess);
      const token = tokenWithPolicy(crafted.toString('base64'), timestamp);
      observed.set(guess, await send('service', token));
    }

    expect(validPadding.length).toBeGreaterThan(0);
    expect(validPadding.length).toBeLessThan(256);
    expect(byObservation(observed)).toHaveLength(1);
    expect([...observed.values()][0]).toContain('"errorCode":"7016"');
  });

  it('a policy with bad padding, one that is not UTF-8 and one that is not JSON look the same on every channel', async () => {
    const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;
    const encryptPolicy = (plain: Buffer, padding = true) => {
      const cipher = createCipheriv('aes-256-cbc', Buffer.from(TOKEN_SITE.siteKey), IV);
      cipher.setAutoPadding(padding);
      return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
    };
    const policies = [
      encryptPolicy(Buffer.alloc(16, 0), false),
      encryptPolicy(Buffer.from('{"policy_version":2}'.padEnd(32)), false),
      encryptPolicy(Buffer.from([0xff, 0xfe, 0xfd, 0x80])),
      encryptPolicy(Buffer.from('hello, site')),
    ];
    const observed = new Map<number, string>();
    for (const [i, policy] of policies.entries()) {
      observed.set(i, await send('service', tokenWithPolicy(policy, timestamp)));
    }
    expect(byObservation(observed)).toHaveLength(1);
    expect([...observed.values()][0]).toContain('"errorCode":"7016"');
  });
});
