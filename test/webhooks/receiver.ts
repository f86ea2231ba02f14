import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A partner's webhook receiver on 127.0.0.1 (allowed by PARASOL_WEBHOOKS_ALLOW_PRIVATE=on in the
 * tests): records every request and verifies its Standard Webhooks signature with the secret of
 * its path, as a partner's code would. Each test uses its own path (and so its own secret).
 */

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What Webhook.verify returned, or its error message. */
  verified: boolean;
  verifyError: string | null;
  payload: { type: string; timestamp: string; data: any } | null;
}

/**
 * What the receiver answers: a status (and body, headers), sent whole — or, `unfinished`, its head and
 * that body and then nothing more, the connection left open; or `hang`: nothing at all.
 */
export type Answer = { status: number; body?: string; headers?: Record<string, string>; unfinished?: boolean } | 'hang';

export class Receiver {
  readonly requests: Received[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly answers = new Map<string, (n: number) => Answer | Promise<Answer>>();
  private readonly waiters: { path: string; count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The secret to verify requests to `path` with (the one addEndpoint answered). */
  secret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  /** How to answer the n-th request (1-based) to `path`; 200 by default. The answer may wait for something (a promise). */
  answer(path: string, answer: (n: number) => Answer | Promise<Answer>): void {
    this.answers.set(path, answer);
  }

  received(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves when `path` has received `count` requests, or fails after `timeoutMs`. */
  async waitFor(path: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
    if (this.received(path).length < count) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${path}: ${this.received(path).length} of ${count} requests after ${timeoutMs} ms`)),
          timeoutMs,
        );
        this.waiters.push({ path, count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    }
    return this.received(path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      const secret = this.secrets.get(path);
      let verified = false;
      let verifyError: string | null = secret ? null : 'no secret registered for this path';
      let payload: Received['payload'] = null;
      if (secret) {
        try {
          payload = new Webhook(secret).verify(body, headers) as Received['payload'];
          verified = true;
        } catch (error) {
          verifyError = (error as Error).message;
        }
      }
      this.requests.push({ path, headers, body, verified, verifyError, payload });
      const n = this.received(path).length;
      const answering = this.answers.get(path)?.(n) ?? { status: 200 };
      for (const waiter of [...this.waiters]) {
        if (waiter.path === path && n >= waiter.count) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      void Promise.resolve(answering).then((answer) => {
        if (answer === 'hang') return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        if (answer.unfinished) res.write(answer.body ?? '');
        else res.end(answer.body ?? '');
      });
    });
  }
}
