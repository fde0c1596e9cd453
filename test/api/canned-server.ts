/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) that answers with canned responses and records
 * every request it receives, so client tests check what actually went over the wire.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The raw request target as sent (path and query, still URL-encoded). */
  rawUrl: string;
  /** Decoded-free path part of `rawUrl`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Canned {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  /** Never answer (the client must time out). */
  hang?: boolean;
  /** Destroy the socket without answering (the client sees a reset / hang-up). */
  drop?: boolean;
}

export type Handler = (request: RecordedRequest) => Canned | Promise<Canned>;

/** Serve `items` as the spec's paged list, honouring `limit` (default 20) and `offset` (default 0). */
export function pagedFrom(items: readonly unknown[]): Handler {
  return (req) => {
    const limit = Number(req.query['limit'] ?? 20);
    const offset = Number(req.query['offset'] ?? 0);
    return { body: { data: items.slice(offset, offset + limit), totalCount: items.length } };
  };
}

export class CannedServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  #handler: Handler = () => ({ status: 500, body: { error: 'no_handler', message: 'test set no handler' } });
  readonly #hanging = new Set<ServerResponse>();
  url = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rawUrl = req.url ?? '/';
        const [path = '/', search = ''] = rawUrl.split('?');
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          rawUrl,
          path,
          query: Object.fromEntries(new URLSearchParams(search)),
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(recorded);
        void Promise.resolve(this.#handler(recorded)).then((canned) => {
          if (canned.drop) {
            req.socket.destroy();
            return;
          }
          if (canned.hang) {
            this.#hanging.add(res);
            return;
          }
          const status = canned.status ?? 200;
          const headers: Record<string, string> = { ...(canned.headers ?? {}) };
          let payload = '';
          if (canned.body !== undefined) {
            if (typeof canned.body === 'string') payload = canned.body;
            else {
              payload = JSON.stringify(canned.body);
              headers['content-type'] ??= 'application/json';
            }
          }
          res.writeHead(status, headers);
          res.end(payload);
        });
      });
    });
  }

  static async start(): Promise<CannedServer> {
    const s = new CannedServer();
    await new Promise<void>((resolve) => s.#server.listen(0, '127.0.0.1', resolve));
    const { port } = s.#server.address() as AddressInfo;
    s.url = `http://127.0.0.1:${port}`;
    return s;
  }

  /** The address of a server that has just stopped: connecting to it is refused. */
  static async closedUrl(): Promise<string> {
    const gone = await CannedServer.start();
    await gone.stop();
    return gone.url;
  }

  /** Answer every following request with `handler` (or with one fixed canned response). */
  on(handler: Handler | Canned): void {
    this.#handler = typeof handler === 'function' ? handler : () => handler;
  }

  get last(): RecordedRequest {
    const r = this.requests[this.requests.length - 1];
    if (!r) throw new Error('the server received no request');
    return r;
  }

  reset(): void {
    this.requests.length = 0;
  }

  async stop(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.#server.close((err) => (err ? reject(err) : resolve())));
  }
}
