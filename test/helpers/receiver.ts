import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** A webhook endpoint on loopback that records what it gets and answers as scripted. */
export class Receiver {
  readonly received: Received[] = [];
  /** Status codes to answer with, in order; once used up, 200. A negative number hangs that long (ms). */
  script: number[] = [];
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        this.received.push({ headers: req.headers, body, json });
        const next = this.script.shift() ?? 200;
        if (next < 0) {
          setTimeout(() => res.writeHead(200).end('late'), -next);
          return;
        }
        res.writeHead(next, { 'content-type': 'text/plain' }).end(`status ${next}`);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
