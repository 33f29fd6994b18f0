import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptSegment, readClearSamples } from '../support/cenc/index.ts';
import { ContentError } from './content-error.ts';
import type { ContentOptions } from './content-options.ts';
import {
  CLIP,
  CLEARKEY_MANIFEST,
  CONTENT_ID,
  HLS_PLAYLISTS,
  SOURCE_FILE,
  clipArgs,
  frameArgs,
  frameFile,
  packagerArgs,
} from './content-recipe.ts';
import { requireFfmpeg, requirePackager, runTool } from './content-tools.ts';
import { clearKeySignalling, dashIfClearKeyManifest } from './clearkey-signalling.ts';
import type { Tool } from './content-tools.ts';

/** The shape of keys.json, which the emulator, the e2e tests and the demo read. */
export interface ContentKeys {
  readonly cid: string;
  readonly kid: string;
  readonly key: string;
  readonly durationSeconds: number;
}

/** Entries of the output directory this script owns; anything else there is left alone. */
export const OUTPUT_ENTRIES = [
  'manifest.mpd',
  CLEARKEY_MANIFEST,
  ...Object.values(HLS_PLAYLISTS),
  'video',
  'audio',
  'clear',
  'frames',
  'keys.json',
];

export type Log = (line: string) => void;

export async function makeContent(options: ContentOptions, log: Log): Promise<ContentKeys> {
  const ffmpeg: Tool = { name: 'ffmpeg', path: options.ffmpeg, secrets: [options.key] };
  const packager: Tool = { name: 'shaka-packager', path: options.packager, secrets: [options.key] };
  log(`using ${requireFfmpeg(ffmpeg.path)}`);
  log(`using shaka-packager ${requirePackager(packager.path)}`);

  // Everything is built in a scratch directory first, so a failed run leaves the old content intact.
  const work = await mkdtemp(join(tmpdir(), 'multidrm-content-'));
  try {
    const stage = join(work, 'out');
    await mkdir(join(stage, 'frames'), { recursive: true });
    const source = join(work, SOURCE_FILE);
    const { durationSeconds, width, height, fps } = CLIP;
    log(`rendering a ${durationSeconds} s ${width}x${height} ${fps} fps H.264 + AAC clip`);
    runTool(ffmpeg, clipArgs(source), work, 'rendering the clear clip');

    log(`writing clear reference frames at ${CLIP.frameSeconds.join(', ')} s`);
    for (const seconds of CLIP.frameSeconds) {
      runTool(ffmpeg, frameArgs(source, seconds, frameFile(seconds)), stage, 'writing frames');
    }

    log(`encrypting and packaging DASH and HLS (cenc, CommonSystem, kid ${options.kid})`);
    const keys = { kid: options.kid, key: options.key };
    runTool(packager, packagerArgs(source, { dir: '.', keys }), stage, 'packaging');
    log('signalling the HLS keys as ClearKey (KEYFORMAT="org.w3.clearkey", KEYID)');
    for (const playlist of [HLS_PLAYLISTS.video, HLS_PLAYLISTS.audio]) {
      const path = join(stage, playlist);
      await writeFile(path, clearKeySignalling(await readFile(path, 'utf8'), options.kid));
    }
    log(`writing ${CLEARKEY_MANIFEST}: ClearKey signalled the DASH-IF way (for dash.js)`);
    const mpd = await readFile(join(stage, 'manifest.mpd'), 'utf8');
    await writeFile(join(stage, CLEARKEY_MANIFEST), dashIfClearKeyManifest(mpd));
    log('packaging the same segments in the clear (clear/)');
    runTool(packager, packagerArgs(source, { dir: 'clear' }), stage, 'packaging clear');

    const content: ContentKeys = { cid: CONTENT_ID, ...keys, durationSeconds };
    await writeFile(join(stage, 'keys.json'), `${JSON.stringify(content, null, 2)}\n`);

    log('self-check: decrypting the first segment of each track');
    await selfCheck(stage, options.key);

    await install(stage, options.outDir);
    log(`wrote ${options.outDir} (${Math.round((await sizeOf(options.outDir)) / 1024)} KiB)`);
    return content;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function selfCheck(dir: string, keyHex: string): Promise<void> {
  const key = Buffer.from(keyHex, 'hex');
  for (const kind of ['video', 'audio']) {
    const read = (path: string) => readFile(join(dir, path));
    const decrypted = decryptSegment(
      await read(`${kind}/init.mp4`),
      await read(`${kind}/1.m4s`),
      key,
    );
    const clear = readClearSamples(
      await read(`clear/${kind}/init.mp4`),
      await read(`clear/${kind}/1.m4s`),
    );
    const same =
      decrypted.samples.length === clear.length &&
      decrypted.samples.every(
        (sample, i) => Buffer.compare(sample, clear[i] ?? new Uint8Array()) === 0,
      );
    if (!same) {
      throw new ContentError(
        'SELF_CHECK_FAILED',
        `the first ${kind} segment does not decrypt to the clear samples; the packager output is unusable`,
      );
    }
  }
}

async function install(stage: string, outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  for (const entry of OUTPUT_ENTRIES) {
    await rm(join(outDir, entry), { recursive: true, force: true });
    await cp(join(stage, entry), join(outDir, entry), { recursive: true });
  }
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await sizeOf(join(path, entry));
  return total;
}
