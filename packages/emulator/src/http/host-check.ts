// The Host check of the emulator's HTTP server. A page on another site can make the browser send
// requests to the emulator under a name it controls (DNS rebinding) and read the answers as
// same-origin; the Host header then carries that name, so only the names the emulator is called by
// are answered.

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Whether a Host header may be answered: `allowed` as configured, or else the loopback names and
 * the address listened on (an IP literal, which no rebinding page can send) with `port`.
 */
export function hostCheck(
  allowed: readonly string[] | undefined,
  address: string,
  port: number,
): (host: string | undefined) => boolean {
  if (allowed?.includes('*')) return () => true;
  const own = [...LOOPBACK, address.toLowerCase()];
  const names = new Set(allowed ?? own.map((name) => `${name}:${port}`));
  // A Host without a port names port 80, as a browser omits it there.
  if (allowed === undefined && port === 80) for (const name of own) names.add(name);
  // No Host at all is no browser (HTTP/1.0 clients, raw tools): nothing to rebind.
  return (host) => host === undefined || names.has(host.toLowerCase());
}
