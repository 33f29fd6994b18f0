// A bad padding and a bad plaintext must cost the same in the gateway's reader, or the time of its
// answer is a padding oracle. Per-call times, the two kinds interleaved (so machine noise hits both
// alike), compared by median; the old path (decryption throws on the padding) is shown for scale.
// The Web Crypto twin is timed the same way around its awaits: its two crypto.subtle calls run for
// every message, and Web Crypto never sees the padding.
import { decryptWithKey, openWithKey } from '../src/crypto/aes.ts';
import { toAesKey } from '../src/crypto/aes-key.ts';
import { webCrypto } from '../src/crypto/web-crypto.ts';
import {
  readGatewayRequest,
  readGatewayRequestSync,
  readPlaintext,
} from '../src/gateway/read-request.ts';
import { encrypt } from '../src/index.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { table } from './measure.ts';

const GOAL = 0.05; // at most 5 % apart
const ROUNDS = 20_000;
const WEB_ROUNDS = 4_000;

export default async function bench(): Promise<void> {
  const siteKey = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  const key = toAesKey(siteKey);
  const webKey = webCrypto.key(siteKey);
  const plaintext = '{"user_id":"u","cid":"movie-1","nonce":"n0123456789","drm_type":"Widevine"';
  const badJson = encrypt(plaintext, siteKey); // the closing brace is missing: padding fine, JSON not
  const bytes = Buffer.from(badJson, 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x55;
  const badPadding = bytes.toString('base64');

  const oldPath = (data: string) => {
    try {
      return readPlaintext(decryptWithKey(data, key));
    } catch {
      return undefined;
    }
  };
  const rows = [['reader', 'bad padding (median ns)', 'bad JSON (median ns)', 'ratio', 'goal']];
  const row = (name: string, [padding, json]: [number, number], scored: string | undefined) => {
    const ratio = padding / json;
    rows.push([
      name,
      padding.toFixed(0),
      json.toFixed(0),
      ratio.toFixed(3),
      scored === undefined
        ? '(for scale)'
        : goal(Math.abs(ratio - 1) <= GOAL, `within ${GOAL * 100} %`, scored),
    ]);
  };
  row(
    'site-kit, node:crypto (one path)',
    interleaved((d) => readGatewayRequestSync(() => openWithKey(d, key)), badPadding, badJson),
    'gateway reader on node:crypto, bad padding vs. bad JSON',
  );
  row(
    'site-kit, Web Crypto twin (one path)',
    await interleavedAsync((d) => readGatewayRequest(webCrypto, d, webKey), badPadding, badJson),
    'gateway reader on Web Crypto, bad padding vs. bad JSON',
  );
  row('throwing decrypt (before)', interleaved(oldPath, badPadding, badJson), undefined);
  table(rows);
}

function interleaved(read: (data: string) => unknown, a: string, b: string): [number, number] {
  for (let i = 0; i < 2000; i++) read(i % 2 ? a : b);
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const [data, into] of order(i, a, b, ta, tb)) {
      const start = process.hrtime.bigint();
      read(data);
      into.push(Number(process.hrtime.bigint() - start));
    }
  }
  return [median(ta), median(tb)];
}

async function interleavedAsync(
  read: (data: string) => Promise<unknown>,
  a: string,
  b: string,
): Promise<[number, number]> {
  for (let i = 0; i < 500; i++) await read(i % 2 ? a : b);
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < WEB_ROUNDS; i++) {
    for (const [data, into] of order(i, a, b, ta, tb)) {
      const start = process.hrtime.bigint();
      await read(data);
      into.push(Number(process.hrtime.bigint() - start));
    }
  }
  return [median(ta), median(tb)];
}

function order(i: number, a: string, b: string, ta: number[], tb: number[]) {
  return i % 2
    ? ([
        [a, ta],
        [b, tb],
      ] as const)
    : ([
        [b, tb],
        [a, ta],
      ] as const);
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
