/**
 * The device ID in a client-meta header: base64 of a JSON object whose `device_id` names the
 * device (the service's device info). Undefined when the header is absent or says no device, so
 * that a site can tell "no device" from a device.
 */
export function deviceIdFromClientMeta(value: string | null | undefined): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 8192) return undefined;
  let info: unknown;
  try {
    info = JSON.parse(
      new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0))),
    );
  } catch {
    return undefined;
  }
  if (typeof info !== 'object' || info === null) return undefined;
  const id = (info as Record<string, unknown>)['device_id'];
  return typeof id === 'string' && id.length > 0 && id.length <= 512 ? id : undefined;
}
