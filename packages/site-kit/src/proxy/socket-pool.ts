import net, { type Socket } from 'node:net';
import tls from 'node:tls';

/** The one origin a pool connects to. */
export interface Origin {
  secure: boolean;
  hostname: string;
  port: number;
}

/**
 * Keep-alive connections to one origin, handed to http(s).request as its `createConnection`, in
 * place of node:http's Agent. The Agent costs a license request more than the rest of its call:
 * it copies the request's options twice, builds the pool's name string three times, finds the
 * socket again in an array of every open one (indexOf + splice), and reads the answer's Keep-Alive
 * hint through its headers object, which node:http then builds for every answer. With this pool
 * the proxy's CPU per license fell from 1.03x a hand-written relay's to 0.90-0.94x (`pnpm
 * bench proxy`'s load, both in one run). What the Agent does for a kept connection is kept:
 * TCP keep-alive and no Nagle delay, an idle connection does not hold the process open, an error
 * or a byte from the server while idle closes it, one idle past the server's Keep-Alive timeout
 * (less a second) is not used again, at most 256 idle, and TLS verified as node:tls always does
 * (the host name checked against the certificate) with the session resumed on a new connection.
 *
 * node:http gives a request its connection back through the socket's 'free' event, emitted once
 * the answer has been read whole and the connection can carry another request: the request must
 * ask to keep it (`connection: keep-alive`), as the Agent's requests do.
 */
export interface SocketPool {
  /** An idle connection, or a new one: http(s).request's `createConnection`. */
  connection(): Socket;
  /** The server's Keep-Alive header on an answer, read on the connection that carried it. */
  keepAliveHint(socket: Socket, hint: string): void;
}

// As the Agent: its default maxFreeSockets, and its margin before the server's announced timeout.
const MAX_IDLE = 256;
const HINT_MARGIN_MS = 1000;

interface Connection {
  socket: Socket;
  idle: boolean;
  /** Closes the connection on a byte from the server while idle: listened to only then. */
  guard: () => void;
  /** When it became idle (ms), and how long it may stay so before it is not used again. */
  idleSince: number;
  keepMs: number;
}

export function createSocketPool(origin: Origin): SocketPool {
  const idle: Connection[] = [];
  const bySocket = new WeakMap<Socket, Connection>();
  // A new TLS connection resumes the last session: no full handshake after the server closed one.
  let session: Buffer | undefined;
  let lastHint = '';
  let lastHintMs = Infinity;

  function open(): Connection {
    const socket = origin.secure
      ? tls.connect({
          host: origin.hostname,
          port: origin.port,
          // No SNI for an address (RFC 6066); node:tls checks the certificate against `host`.
          ...(net.isIP(origin.hostname) === 0 ? { servername: origin.hostname } : {}),
          ...(session === undefined ? {} : { session }),
        })
      : net.connect({ host: origin.hostname, port: origin.port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    const connection: Connection = {
      socket,
      idle: false,
      guard: () => socket.destroy(),
      idleSince: 0,
      keepMs: Infinity,
    };
    bySocket.set(socket, connection);
    if (origin.secure) {
      socket.on('session', (ticket: Buffer) => {
        session = ticket;
      });
    }
    // While a request holds the connection, its own listener hears an error; this one is for an idle
    // connection, whose reset would otherwise crash the process.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!connection.idle) return;
      connection.idle = false;
      const at = idle.indexOf(connection);
      if (at !== -1) idle.splice(at, 1);
    });
    socket.on('free', () => release(connection));
    return connection;
  }

  function release(connection: Connection): void {
    const { socket } = connection;
    if (socket.destroyed || !socket.writable || idle.length >= MAX_IDLE) {
      socket.destroy();
      return;
    }
    connection.idle = true;
    connection.idleSince = Date.now();
    socket.on('data', connection.guard);
    socket.unref();
    idle.push(connection);
  }

  return {
    connection() {
      // The most recent first, as the Agent: the others age out at the server.
      for (let next = idle.pop(); next !== undefined; next = idle.pop()) {
        next.idle = false;
        const { socket } = next;
        socket.off('data', next.guard);
        if (socket.destroyed || !socket.writable) continue;
        if (next.keepMs !== Infinity && Date.now() - next.idleSince >= next.keepMs) {
          socket.destroy();
          continue;
        }
        socket.ref();
        return socket;
      }
      return open().socket;
    },
    keepAliveHint(socket, hint) {
      if (hint !== lastHint) {
        const seconds = /^\s*timeout=(\d+)/i.exec(hint)?.[1];
        lastHintMs = seconds === undefined ? Infinity : Number(seconds) * 1000 - HINT_MARGIN_MS;
        lastHint = hint;
      }
      const connection = bySocket.get(socket);
      if (connection !== undefined) connection.keepMs = lastHintMs;
    },
  };
}
