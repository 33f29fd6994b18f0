// What reading a gateway body costs per KB before any decryption: the form value (readDataParameter)
// and its base64 check (isBase64), at the sizes the service sends (177 bytes usually, up to tens of
// KB with many keys or long device data). In-process, interleaved rounds, median per size. Goal:
// linear, the cost per KB at 58 KB within 1.5x that at 2 KB (character loops that built the value
// a slice at a time grew to 2-3x).
import { randomBytes } from 'node:crypto';
import { isBase64 } from '../src/encoding/base64.ts';
import { readDataParameter } from '../src/http/form-body.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { median, table } from './measure.ts';

const SIZES_KB = [0.2, 2, 6, 24, 58];
const ROUNDS = 7;

function body(kb: number): string {
  return `data=${encodeURIComponent(randomBytes(Math.floor(kb * 1024 * 0.75)).toString('base64'))}`;
}

function timePerCall(text: string, calls: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const value = readDataParameter(text);
    if (value === undefined || !isBase64(value)) throw new Error('the body did not read');
  }
  return Number(process.hrtime.bigint() - start) / calls / 1000;
}

export default function bench(): void {
  const bodies = SIZES_KB.map(body);
  const calls = SIZES_KB.map((kb) => Math.max(200, Math.round(40_000 / kb)));
  bodies.forEach((text, i) => timePerCall(text, calls[i] as number)); // warm-up
  const times: number[][] = SIZES_KB.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    bodies.forEach((text, i) => times[i]?.push(timePerCall(text, calls[i] as number)));
  }
  const perKb = SIZES_KB.map((kb, i) => median(times[i] as number[]) / kb);
  const rows = [['body', 'µs per body', 'µs per KB']];
  SIZES_KB.forEach((kb, i) => {
    rows.push([
      `${kb} KB`,
      median(times[i] as number[]).toFixed(2),
      (perKb[i] as number).toFixed(2),
    ]);
  });
  const growth = (perKb[4] as number) / (perKb[1] as number);
  rows.push([
    'per KB, 58 KB / 2 KB',
    '',
    growth.toFixed(2),
    goal(growth <= 1.5, 'linear: <= 1.5x', 'gateway body read per KB'),
  ]);
  table(rows);
}
