import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ContentEntry, PlayerName, UserEntry } from '../../shared/contract.ts';

/** The sample content's key file (test/fixtures/content/keys.json). */
const keyFileSchema = z.strictObject({
  cid: z.string().min(1),
  kid: z.string().regex(/^[0-9a-f]{32}$/),
  key: z.string().regex(/^[0-9a-f]{32}$/),
  durationSeconds: z.number().positive(),
});
export type ContentKeyFile = z.infer<typeof keyFileSchema>;

export async function readContentKeys(contentDir: string): Promise<ContentKeyFile> {
  const path = join(contentDir, 'keys.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new Error(
      `The sample content is missing: no ${path}. Run \`pnpm content\` in the repository to make it.`,
    );
  }
  const parsed = keyFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path} is not a valid content key file.`);
  return parsed.data;
}

/**
 * Three titles over the one sample clip, so that each rule of the flow can be seen: a members-only
 * title, a free one, and one whose key the license service does not hold (only an external key from
 * the site plays it).
 */
export function catalogue(sampleCid: string): ContentEntry[] {
  return [
    {
      cid: sampleCid,
      title: 'Sample clip (members)',
      note: 'Plays for users whose id starts with "member-".',
    },
    { cid: 'free-sample', title: 'Free preview', note: 'Plays for every signed-in user.' },
    {
      cid: 'byok-sample',
      title: 'Site-keyed clip',
      note: 'The license service holds no key for it: turn the external key on.',
    },
  ];
}

/**
 * The rendition each player plays: one set of encrypted segments (test/fixtures/content), signalled
 * as that player reads ClearKey.
 */
export const PLAYER_MANIFESTS: Readonly<Record<PlayerName, { file: string; type: string }>> = {
  shaka: { file: 'manifest.mpd', type: 'application/dash+xml' },
  // HLS, fMP4 with KEYFORMAT="org.w3.clearkey".
  hls: { file: 'master.m3u8', type: 'application/x-mpegURL' },
  // ClearKey signalled the DASH-IF way: dash.js 5.2 mishandles the common PSSH for ClearKey.
  dash: { file: 'manifest-clearkey.mpd', type: 'application/dash+xml' },
  // DASH through video.js's VHS.
  videojs: { file: 'manifest.mpd', type: 'application/dash+xml' },
};

export const USERS: readonly UserEntry[] = [
  { id: 'member-alice', note: 'a member: every title' },
  { id: 'guest-bob', note: 'not a member: free titles only' },
];

/** The demo site's business rule: free titles for everyone, the rest for members. */
export function isEntitled(userId: string, cid: string): boolean {
  return cid.startsWith('free-') || userId.startsWith('member-');
}

/** Titles whose key the emulator is given; byok-sample is left out on purpose. */
export function emulatorKeys(sample: ContentKeyFile): Record<string, { kid: string; key: string }> {
  const key = { kid: sample.kid, key: sample.key };
  return { [sample.cid]: key, 'free-sample': key };
}
