/**
 * A small HTTP file server for the data-URL tests: node:http on 127.0.0.1 at a random port, each file
 * with an ETag (a conditional request that matches gets 304), anything else a 404; every request is
 * recorded. A route is a function, so a test can change what a URL serves between two requests (null:
 * a 404 from then on).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface Served {
  readonly body: Buffer;
  /** Send without a Content-Length (chunked), as a server streaming a file of unknown size does. */
  readonly chunked?: boolean;
}

export interface FileServer {
  readonly port: number;
  url(name: string): string;
  readonly requests: Array<{ path: string; status: number; conditional: boolean }>;
  close(): Promise<void>;
}

export async function serveFiles(routes: Record<string, () => Served | null>): Promise<FileServer> {
  const requests: FileServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1));
    const served = routes[name]?.() ?? null;
    const conditional = req.headers['if-none-match'] !== undefined;
    if (served === null) {
      requests.push({ path: name, status: 404, conditional });
      res.writeHead(404, 'Not Found', { 'content-type': 'text/plain' }).end('no such file\n');
      return;
    }
    const { body, chunked } = served;
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) {
      requests.push({ path: name, status: 304, conditional });
      res.writeHead(304, { etag }).end();
      return;
    }
    requests.push({ path: name, status: 200, conditional });
    res.writeHead(200, { etag, 'content-type': 'text/csv', ...(chunked ? {} : { 'content-length': String(body.length) }) });
    if (chunked) {
      // two writes: the body goes out in chunks, no length announced
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      res.end(body.subarray(Math.floor(body.length / 2)));
    } else res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
