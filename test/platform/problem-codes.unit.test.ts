import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { DomainError } from '../../src/platform/errors.ts';
import {
  checkProblemCodes,
  operationProblemCodes,
  problemResponses,
  type UndeclaredProblem,
} from '../../src/platform/openapi.ts';
import { installErrorHandling } from '../../src/platform/problem.ts';

/** The check the test app runs on every problem (test/helper.ts), on a bare app: no database. */
describe("the check of an operation's problem codes", () => {
  async function appWith(report: (problem: UndeclaredProblem) => void) {
    const app = Fastify();
    installErrorHandling(app);
    checkProblemCodes(app, report);
    const schema = { response: { 200: { type: 'object' }, ...problemResponses({ 404: ['contract_not_found'] }) } };
    app.get('/documented/:answer', { schema }, async (request) => {
      const { answer } = request.params as { answer: string };
      if (answer === 'contract') throw new DomainError('contract_not_found', 'No contract.');
      if (answer === 'claim') throw new DomainError('claim_not_found', 'No claim.');
      if (answer === 'conflict') throw new DomainError('contract_not_cancellable', 'No.');
      return {};
    });
    app.get('/page', async () => {
      throw new DomainError('claim_not_found', 'No claim.');
    });
    await app.ready();
    return app;
  }

  it('reports a code the operation does not declare, or a status it does not document, and nothing else', async () => {
    const reported: UndeclaredProblem[] = [];
    const app = await appWith((problem) => reported.push(problem));
    try {
      const status = async (url: string) => (await app.inject({ url })).statusCode;
      assert.equal(await status('/documented/contract'), 404);
      assert.equal(await status('/documented/ok'), 200);
      assert.equal(await status('/page'), 404); // a route declaring no problems (a console page) is not checked
      assert.equal(await status('/nowhere'), 404); // nor an unknown route
      assert.equal(reported.length, 0);
      assert.equal(await status('/documented/claim'), 404);
      assert.equal(await status('/documented/conflict'), 409);
      assert.deepEqual(
        reported.map((p) => [p.method, p.route, p.status, p.code]),
        [
          ['GET', '/documented/:answer', 404, 'claim_not_found'],
          ['GET', '/documented/:answer', 409, 'contract_not_cancellable'],
        ],
      );
      assert.deepEqual(reported[0]!.documented, ['contract_not_found']);
      assert.deepEqual(reported[1]!.documented, []);
    } finally {
      await app.close();
    }
  });

  it('adds the shared codes, a body’s and the idempotency layer’s to what a route declares', () => {
    const declared = { response: problemResponses({ 409: ['quote_already_used'] }) };
    const get = operationProblemCodes('GET', declared)!;
    assert.deepEqual(get.get(409), ['quote_already_used']);
    assert.deepEqual(get.get(422), ['validation_failed']);
    assert.deepEqual(get.get(503), ['service_unavailable']);
    assert.equal(get.get(415), undefined);
    const idempotent = {
      ...declared,
      headers: { type: 'object', properties: { 'idempotency-key': { type: 'string' } } },
    };
    const post = operationProblemCodes('POST', idempotent)!;
    assert.deepEqual(post.get(409), ['quote_already_used', 'idempotency_request_in_progress']);
    assert.deepEqual(post.get(422), ['validation_failed', 'idempotency_key_reused']);
    assert.deepEqual(post.get(415), ['unsupported_media_type']);
    assert.equal(operationProblemCodes('GET', { response: { 200: { type: 'object' } } }), undefined);
  });
});
