import { EmulatorError } from './errors.ts';
import type { Call } from './http/exchange.ts';

/**
 * Where a player may name its stream (see Streams in the README): the emulator's own, optional, a
 * local refinement that the service never receives. With it, two players of one content on one
 * device are two streams; without it, a stream is the user's playback of a cid on a device.
 */
export const STREAM_ID_HEADER = 'x-drm-stream-id';
/**
 * The query parameter that names the stream when the {@link STREAM_ID_HEADER} header cannot be
 * sent.
 */
export const STREAM_ID_QUERY = 'stream_id';
const MAX_STREAM_ID = 128;

/** The player's name for its stream, if it gives one: 1 to 128 printable ASCII characters. */
export function readStreamId(call: Call): string | undefined {
  const value =
    call.header(STREAM_ID_HEADER) ??
    (call.query === '' ? null : new URLSearchParams(call.query).get(STREAM_ID_QUERY)) ??
    undefined;
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length <= MAX_STREAM_ID && /^[\x21-\x7e]+$/.test(trimmed)) return trimmed;
  throw new EmulatorError(
    'BAD_LICENSE_REQUEST',
    `The stream ID (header ${STREAM_ID_HEADER} or query parameter ${STREAM_ID_QUERY}) must be 1 to ${MAX_STREAM_ID} printable ASCII characters without spaces; or leave it out: the stream is then the user's playback of the cid on this device, as the service sees it.`,
    undefined,
    { field: STREAM_ID_HEADER },
  );
}
