import { fromBase64, toBytes, type BufferLike } from './bytes.ts';

/**
 * The challenge inside a PlayReady key message as Edge and others wrap it (UTF-16 XML
 * `<PlayReadyKeyMessage>` with a base64 `<Challenge>` and `<HttpHeader>`s to send), for adapters
 * that send the request themselves; `null` for a message that is not wrapped.
 */
export function playReadyChallenge(
  message: BufferLike,
): { body: Uint8Array; headers: Record<string, string> } | null {
  const xml = new TextDecoder('utf-16le').decode(toBytes(message));
  const body = xml.includes('PlayReadyKeyMessage')
    ? fromBase64(/<Challenge[^>]*>([^<]*)</.exec(xml)?.[1] ?? '')
    : null;
  if (!body) return null;
  const headers: Record<string, string> = {};
  for (const [, name = '', value = ''] of xml.matchAll(
    /<name>([^<]*)<\/name>\s*<value>([^<]*)<\/value>/g,
  ))
    headers[name.trim()] = value.trim();
  return { body, headers };
}
