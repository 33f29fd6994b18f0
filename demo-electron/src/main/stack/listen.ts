import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener, type WebHandler } from '@multidrm/site-kit';

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Serves a web-standard handler on 127.0.0.1 (port 0 = ephemeral). */
export async function listen(handler: WebHandler, port = 0): Promise<Listening> {
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: actual } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${actual}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
