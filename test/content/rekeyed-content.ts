import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A second asset made from the committed sample in milliseconds, without ffmpeg: the same media
 * under another key ID. A player that still holds the sample's key cannot play it, so it has to
 * ask this asset's license (a copy with the sample's own key ID may be played on the key already
 * held, with no license request at all). The content key stays the sample's: the emulator is given
 * `{ kid: <the new kid>, key: <the sample's key> }` for it.
 */
export interface RekeyedContent {
  readonly dir: string;
  readonly kid: string;
  remove(): Promise<void>;
}

/** The files of the sample that name its key ID, and how many times each must. */
const INIT_SEGMENTS = ['video/init.mp4', 'audio/init.mp4'] as const;
const TEXT_FILES = ['manifest.mpd', 'manifest-clearkey.mpd', 'video.m3u8', 'audio.m3u8'] as const;

export async function makeRekeyedContent(
  contentDir: string,
  fromKid: string,
  toKid: string,
): Promise<RekeyedContent> {
  const from = kidBytes(fromKid, 'fromKid');
  const to = kidBytes(toKid, 'toKid');
  const dir = await mkdtemp(join(tmpdir(), 'multidrm-rekeyed-'));
  try {
    await cp(contentDir, dir, { recursive: true });
    for (const path of INIT_SEGMENTS) {
      const file = join(dir, path);
      await writeFile(file, replaceKid(await readFile(file), from, to, path));
    }
    for (const path of TEXT_FILES) {
      const file = join(dir, path);
      await writeFile(file, rekeyText(await readFile(file, 'utf8'), from, to, path));
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, kid: toKid, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Every spelling of the key ID in a manifest or playlist: a UUID (DASH default_KID), hex
 * (HLS KEYID), base64 of the 16 bytes (HLS data: URI), and inside each base64 PSSH box.
 */
export function rekeyText(text: string, from: Buffer, to: Buffer, name = 'text'): string {
  const spellings = (kid: Buffer) => {
    const hex = kid.toString('hex');
    return [
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      hex.toUpperCase(),
      hex,
      kid.toString('base64'),
    ];
  };
  const old = spellings(from);
  const fresh = spellings(to);
  let out = text.replace(/<cenc:pssh>([^<]*)<\/cenc:pssh>/g, (_, box: string) => {
    const bytes = replaceKid(Buffer.from(box, 'base64'), from, to, `a PSSH in ${name}`, 1);
    return `<cenc:pssh>${bytes.toString('base64')}</cenc:pssh>`;
  });
  old.forEach((spelling, i) => (out = out.replaceAll(spelling, fresh[i] ?? '')));
  // If the packager's layout changes, this says so instead of serving the sample's key ID.
  if (out === text || old.some((spelling) => out.includes(spelling))) {
    throw new Error(`${name}: the key ID is not where expected (no change, or a spelling left)`);
  }
  return out;
}

/** The key ID's 16 bytes replaced where they stand (tenc and pssh in an init segment). */
function replaceKid(bytes: Buffer, from: Buffer, to: Buffer, name: string, atLeast = 2): Buffer {
  const out = Buffer.from(bytes);
  let found = 0;
  for (let at = out.indexOf(from); at >= 0; at = out.indexOf(from, at + from.length)) {
    to.copy(out, at);
    found++;
  }
  if (found < atLeast) {
    throw new Error(`${name}: expected the key ID at least ${atLeast} times, found ${found}`);
  }
  return out;
}

function kidBytes(kid: string, name: string): Buffer {
  if (!/^[0-9a-f]{32}$/.test(kid)) throw new Error(`${name} must be 32 lowercase hex digits`);
  return Buffer.from(kid, 'hex');
}
