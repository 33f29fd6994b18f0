import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A key ID for the second period: its init segments say this one, its media are the first's. */
export const SECOND_PERIOD_KID = '5ec04d9e2e0a4c3fb1d7a6e0c2f4b801';

export interface TwoPeriodContent {
  dir: string;
  remove(): Promise<void>;
}

/**
 * The sample played twice in a row as two DASH periods whose init segments name different key IDs,
 * and without init data in the manifest: Shaka then asks for the second period's license only when
 * that period's init segment is appended, in the middle of playback. The second key ID's content key
 * is the sample's key (the media bytes are the same), so the emulator must be told both key IDs.
 */
export async function makeTwoPeriodContent(
  contentDir: string,
  sampleKid: string,
): Promise<TwoPeriodContent> {
  const dir = await mkdtemp(join(tmpdir(), 'multidrm-two-periods-'));
  await cp(contentDir, dir, { recursive: true });
  const from = Buffer.from(sampleKid, 'hex');
  const to = Buffer.from(SECOND_PERIOD_KID, 'hex');
  for (const track of ['video', 'audio']) {
    const init = await readFile(join(dir, track, 'init.mp4'));
    const patched = replaceAll(init, from, to);
    await writeFile(join(dir, track, 'init-b.mp4'), patched);
  }
  const mpd = await readFile(join(dir, 'manifest.mpd'), 'utf8');
  await writeFile(join(dir, 'manifest.mpd'), twoPeriods(mpd, sampleKid));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

function replaceAll(bytes: Buffer, from: Buffer, to: Buffer): Buffer {
  const out = Buffer.from(bytes);
  let found = 0;
  for (let at = out.indexOf(from); at >= 0; at = out.indexOf(from, at + from.length)) {
    to.copy(out, at);
    found++;
  }
  // tenc and pssh: if the packager's layout changes, this says so instead of playing the first key.
  if (found !== 2) throw new Error(`expected the key ID twice in an init segment, found ${found}`);
  return out;
}

function twoPeriods(mpd: string, sampleKid: string): string {
  const period = /<Period[\s\S]*<\/Period>/.exec(mpd)?.[0];
  const duration = /mediaPresentationDuration="PT([\d.]+)S"/.exec(mpd)?.[1];
  if (period === undefined || duration === undefined) throw new Error('unexpected sample manifest');
  // The key system stays signalled, its init data goes: every license request then comes from an
  // init segment's pssh, when that segment is appended.
  const bare = period.replace(/\s*<cenc:pssh>[^<]*<\/cenc:pssh>/g, '');
  const dashed = (kid: string) =>
    `${kid.slice(0, 8)}-${kid.slice(8, 12)}-${kid.slice(12, 16)}-${kid.slice(16, 20)}-${kid.slice(20)}`;
  const first = bare.replace(
    '<Period id="0"',
    `<Period id="p1" start="PT0S" duration="PT${duration}S"`,
  );
  const second = bare
    .replace('<Period id="0"', `<Period id="p2" start="PT${duration}S"`)
    .replaceAll('init.mp4', 'init-b.mp4')
    .replaceAll(dashed(sampleKid), dashed(SECOND_PERIOD_KID));
  return mpd
    .replace(period, `${first}\n  ${second}`)
    .replace(
      /mediaPresentationDuration="PT[\d.]+S"/,
      `mediaPresentationDuration="PT${Number(duration) * 2}S"`,
    );
}
