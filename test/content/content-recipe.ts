/**
 * What the sample content is: the clear clip ffmpeg renders and the packager command lines. Pure
 * data and argument builders; running them is content-tools.ts's job.
 */

export const CONTENT_ID = 'multidrm-sample';

export const CLIP = {
  durationSeconds: 8,
  width: 640,
  height: 360,
  fps: 24,
  /** A keyframe every 2 s, so every 2 s DASH segment starts with one. */
  segmentSeconds: 2,
  /** Seconds at which clear reference frames are written (frames/<t>s.png). */
  frameSeconds: [1, 2, 3, 4],
} as const;

export const SOURCE_FILE = 'source.mp4';

export function frameFile(seconds: number): string {
  return `frames/${seconds}s.png`;
}

/** ffmpeg arguments that render the clear H.264 + AAC clip to `output`. */
export function clipArgs(output: string): string[] {
  const { durationSeconds, width, height, fps, segmentSeconds } = CLIP;
  const gop = String(fps * segmentSeconds);
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'],
    ...[
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${width}x${height}:rate=${fps}:duration=${durationSeconds}`,
    ],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${durationSeconds}`],
    ...['-map', '0:v', '-map', '1:a'],
    ...['-c:v', 'libx264', '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-preset', 'medium'],
    // ffmpeg converts testsrc2's RGB with the BT.601 matrix; saying so in the stream makes browsers
    // decode with the same matrix (untagged SD video gets BT.709 in Chromium) so screenshots match
    // the reference frames.
    ...['-colorspace', 'smpte170m', '-color_primaries', 'smpte170m', '-color_trc', 'smpte170m'],
    ...['-color_range', 'tv'],
    ...['-b:v', '300k', '-maxrate', '400k', '-bufsize', '600k'],
    // Fixed GOPs without scene-cut keyframes keep segment boundaries exactly on keyframes.
    ...[
      '-g',
      gop,
      '-keyint_min',
      gop,
      '-sc_threshold',
      '0',
      '-x264-params',
      'scenecut=0:open_gop=0',
    ],
    ...['-c:a', 'aac', '-b:a', '64k', '-ac', '2'],
    ...['-shortest', output],
  ];
}

/** ffmpeg arguments that write the decoded frame at `seconds` of `input` as a PNG. */
export function frameArgs(input: string, seconds: number, output: string): string[] {
  // -ss after -i decodes up to the exact time instead of snapping to a keyframe.
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-i',
    input,
    '-ss',
    String(seconds),
  ].concat(['-frames:v', '1', '-an', output]);
}

export interface PackageTarget {
  /** Directory (relative to the packager's working directory) that receives the MPD and segments. */
  readonly dir: string;
  /** Raw key to encrypt with; omit for a clear packaging of the same segments. */
  readonly keys?: { readonly kid: string; readonly key: string };
}

/** The DASH manifest of the same segments with ClearKey signalled as DASH-IF says (for dash.js). */
export const CLEARKEY_MANIFEST = 'manifest-clearkey.mpd';

/** The HLS rendition of the encrypted content: one master playlist, one media playlist per track. */
export const HLS_PLAYLISTS = {
  master: 'master.m3u8',
  video: 'video.m3u8',
  audio: 'audio.m3u8',
} as const;

/**
 * shaka-packager arguments: one video and one audio DASH representation, 2 s segments; with a key,
 * also the HLS playlists of the same fMP4 segments (one set of segments serves DASH and HLS).
 */
export function packagerArgs(input: string, target: PackageTarget): string[] {
  const prefix = target.dir === '.' ? '' : `${target.dir}/`;
  const hls = target.keys !== undefined;
  const stream = (kind: 'video' | 'audio') =>
    `in=${input},stream=${kind},init_segment=${prefix}${kind}/init.mp4,` +
    `segment_template=${prefix}${kind}/$Number$.m4s` +
    (hls ? `,playlist_name=${prefix}${HLS_PLAYLISTS[kind]}` : '') +
    (hls && kind === 'audio' ? ',hls_group_id=audio,hls_name=audio' : '');
  const args = [stream('video'), stream('audio')];
  if (target.keys !== undefined) {
    args.push(
      '--enable_raw_key_encryption',
      '--keys',
      `label=:key_id=${target.keys.kid}:key=${target.keys.key}`,
      ...['--protection_scheme', 'cenc', '--protection_systems', 'CommonSystem'],
      // The packager leaves the first 5 s clear by default; every sample must be encrypted.
      ...['--clear_lead', '0'],
      ...['--hls_master_playlist_output', `${prefix}${HLS_PLAYLISTS.master}`],
      ...['--hls_playlist_type', 'VOD'],
    );
  }
  args.push(
    ...['--segment_duration', String(CLIP.segmentSeconds)],
    '--generate_static_live_mpd',
    ...['--mpd_output', `${prefix}manifest.mpd`],
  );
  return args;
}
