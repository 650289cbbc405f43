import type { Server, ServerResponse } from 'node:http';

/**
 * Closing a server that keep-alive clients use: server.close() stops accepting connections and
 * waits for the open ones to end, but a keep-alive connection stays open after its answer (until
 * its idle timeout), and a client that pools connections (a load balancer) keeps sending requests
 * on it, so the close never completes and the process is killed with requests in flight. While
 * closing, every answer (in flight or new on an open connection) says `Connection: close`, and idle
 * connections are closed at once. Call before the server takes requests; the returned close resolves
 * once every connection has ended.
 */
export function closableServer(server: Server): { close(): Promise<void> } {
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) {
      res.setHeader('Connection', 'close');
      return;
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return {
    close() {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      return closed;
    },
  };
}
