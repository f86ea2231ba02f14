import type { TestContext } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';

/** A Fastify app for a fake provider; closed (hung requests included) when the test ends. */
export function fakeApp(): FastifyInstance {
  return Fastify({ logger: false, forceCloseConnections: true });
}

/** Listens on 127.0.0.1, a free port; returns the origin ("http://127.0.0.1:PORT"). */
export async function listen(t: Pick<TestContext, 'after'>, app: FastifyInstance): Promise<string> {
  t.after(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** What a fake answers instead of its normal data: a given response, or nothing at all. */
export type Override = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}
