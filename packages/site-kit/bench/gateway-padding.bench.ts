// A bad padding and a bad plaintext must cost the same in the gateway's reader, or the time of its
// answer is a padding oracle. Two measures:
// 1. The attack itself, in-process: for 8 target blocks, the 256 guesses of the last byte are timed
//    in shuffled rounds, and the right guess (the one whose padding checks out) is ranked by median
//    time among the 256 (1 = slowest, what an attacker tries first). A mean ratio can hide a small
//    difference that the rank still finds: `padded && isUtf8(body)` ranked the right guess 1st of
//    256 in every block here (shown for scale). Goal: no better than chance.
// 2. Bad padding vs. bad JSON, per-call times interleaved, compared by median; the old path
//    (decryption throws on the padding) is shown for scale.
// The Web Crypto twin is timed the same way around its awaits: its two crypto.subtle calls run for
// every message, and Web Crypto never sees the padding.
import { isUtf8 } from 'node:buffer';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { cbcDecryptRaw } from '../src/crypto/cbc-context.ts';
import { checkBlocks, unpaddedLength } from '../src/crypto/cbc-rules.ts';
import { decodeBase64 } from '../src/encoding/base64.ts';
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

  // The attack, ranked.
  const targets = Array.from({ length: BLOCKS }, () => {
    const cipher = createCipheriv('aes-256-cbc', Buffer.from(siteKey), IV);
    return Buffer.concat([cipher.update(randomBytes(32)), cipher.final()]).subarray(16, 32);
  });
  const skippedUtf8 = (d: string) =>
    readGatewayRequestSync(() => {
      // The reader before the fix: the UTF-8 check ran only after a right padding.
      const plain = cbcDecryptRaw(key, checkBlocks(decodeBase64(d, 'data')));
      const { length, padded } = unpaddedLength(plain);
      const body = plain.subarray(0, length);
      return { text: body.toString('utf8'), intact: padded && isUtf8(body) };
    });
  const rankRows = [['reader', 'rank of the right guess of 256, per block', 'goal']];
  const rankRow = (name: string, ranks: number[], scored: boolean) => {
    const top = ranks.filter((r) => r <= TOP).length;
    rankRows.push([
      name,
      ranks.join(' '),
      scored
        ? goal(
            top <= 1,
            `in the slowest ${TOP} in at most 1 of ${BLOCKS} blocks (chance)`,
            `${name}: rank of the right padding guess`,
          )
        : '(for scale)',
    ]);
  };
  rankRow(
    'site-kit, node:crypto',
    await ranks(
      targets,
      siteKey,
      async (d) => readGatewayRequestSync(() => openWithKey(d, key)),
      ROUNDS_RANK,
    ),
    true,
  );
  rankRow(
    'site-kit, Web Crypto twin',
    await ranks(targets, siteKey, (d) => readGatewayRequest(webCrypto, d, webKey), WEB_ROUNDS_RANK),
    true,
  );
  rankRow(
    'UTF-8 check after the padding only (before)',
    await ranks(targets, siteKey, async (d) => skippedUtf8(d), ROUNDS_RANK),
    false,
  );
  table(rankRows);
}

const IV = Buffer.from('0123456789abcdef');
const BLOCKS = 8;
const TOP = 8;
const ROUNDS_RANK = 150;
const WEB_ROUNDS_RANK = 30;

/**
 * For each target block: the rank by median time (1 = slowest) of the best-ranked guess whose
 * padding checks out, among the 256 guesses of the last byte of the block before it.
 */
async function ranks(
  targets: Buffer[],
  siteKey: string,
  read: (data: string) => Promise<unknown>,
  rounds: number,
): Promise<number[]> {
  const out: number[] = [];
  for (const target of targets) {
    const prefix = randomBytes(16);
    const guesses = Array.from({ length: 256 }, (_, g) => {
      prefix[15] = g;
      const crafted = Buffer.concat([prefix, target]);
      return {
        data: crafted.toString('base64'),
        right: paddingIsValid(crafted, siteKey),
        times: [] as number[],
      };
    });
    for (const g of guesses) await read(g.data);
    for (let round = 0; round < rounds; round++) {
      for (const g of shuffled(guesses)) {
        const start = process.hrtime.bigint();
        await read(g.data);
        g.times.push(Number(process.hrtime.bigint() - start));
      }
    }
    const bySlowest = guesses
      .map((g) => ({ right: g.right, median: median(g.times) }))
      .sort((a, b) => b.median - a.median);
    out.push(bySlowest.findIndex((g) => g.right) + 1);
  }
  return out;
}

function paddingIsValid(ciphertext: Buffer, siteKey: string): boolean {
  const decipher = createDecipheriv('aes-256-cbc', Buffer.from(siteKey), IV);
  try {
    Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    return true;
  } catch {
    return false;
  }
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
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
