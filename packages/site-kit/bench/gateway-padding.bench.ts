// A bad padding and a bad plaintext must cost the same in the gateway's reader, or the time of its
// answer is a padding oracle. Per-call times, the two kinds interleaved (so machine noise hits both
// alike), compared by median; the old path (decryption throws on the padding) is shown for scale.
import { decryptWithKey } from '../src/crypto/aes.ts';
import { toAesKey } from '../src/crypto/site-key.ts';
import { readGatewayRequest, readPlaintext } from '../src/gateway/read-request.ts';
import { encrypt } from '../src/index.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { table } from './measure.ts';

const GOAL = 0.05; // at most 5 % apart
const ROUNDS = 20_000;

export default async function bench(): Promise<void> {
  const siteKey = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  const key = toAesKey(siteKey);
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
  for (const [name, read] of [
    ['site-kit (one path)', (d: string) => readGatewayRequest(d, key)],
    ['throwing decrypt (before)', oldPath],
  ] as const) {
    const [padding, json] = interleaved(read, badPadding, badJson);
    const ratio = padding / json;
    const met = Math.abs(ratio - 1) <= GOAL;
    rows.push([
      name,
      padding.toFixed(0),
      json.toFixed(0),
      ratio.toFixed(3),
      name.startsWith('site-kit')
        ? goal(met, `within ${GOAL * 100} %`, 'gateway reader, bad padding vs. bad JSON')
        : '(for scale)',
    ]);
  }
  table(rows);
}

function interleaved(read: (data: string) => unknown, a: string, b: string): [number, number] {
  for (let i = 0; i < 2000; i++) read(i % 2 ? a : b);
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const [data, into] of i % 2
      ? ([
          [a, ta],
          [b, tb],
        ] as const)
      : ([
          [b, tb],
          [a, ta],
        ] as const)) {
      const start = process.hrtime.bigint();
      read(data);
      into.push(Number(process.hrtime.bigint() - start));
    }
  }
  return [median(ta), median(tb)];
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
