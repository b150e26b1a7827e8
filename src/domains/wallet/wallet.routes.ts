import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { signatureHeadersOf, type SignedRequestChallenge } from '../signing/index.js';
import { challengeCredential, createCredential, listCredentials, revokeCredential } from './credentials.service.js';
import { createDelegatedKey, getDelegatedKey, listDelegatedKeys, revokeDelegatedKey } from './delegated-keys.service.js';
import { listSessions, refreshSession, revokeSession, revokeSessionAsPlatform } from './sessions.service.js';
import { simulateWalletCredit } from './wallet.incoming.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { verifyCredential } from './verify.service.js';
import { exportWallet, setWalletPrivacy } from './wallet.service.js';
import {
  accountQuery, authMethodResource, authSessionResource, challengeBody, createCredentialBody, delegatedKeyBody, delegatedKeyResource,
  accountParams, delegatedKeysQuery, exportBody, idParams, privacyBody, receiveBody, refreshBody, sessionListItem, verifyCredentialBody,
} from './wallet.schemas.js';

type Outcome<T> = { kind: 'CHALLENGE'; challenge: SignedRequestChallenge } | { kind: 'DONE'; result: T };

/** A signed action's answer: 202 with the challenge (and REF's `type` when given), else `done`. */
function answer<T>(reply: FastifyReply, o: Outcome<T>, done: (r: T) => unknown, type?: string) {
  if (o.kind === 'CHALLENGE') {
    reply.status(202);
    return { ...o.challenge, ...(type ? { type } : {}) };
  }
  return done(o.result);
}

/** REF's 14 Global Accounts operations (issue 28). Thin: parse, call one service function, shape. */
export async function walletRoutes(app: FastifyInstance) {
  app.post('/auth/credentials', async (req, reply) => {
    const body = parseInput(createCredentialBody, req.body ?? {});
    const o = await createCredential(req.ctx, body, signatureHeadersOf(req.headers));
    return answer(reply, o, (r) => {
      reply.status(201);
      return { ...authMethodResource(r.credential), ...('otpEncryptionTargetBundle' in r ? { otpEncryptionTargetBundle: r.otpEncryptionTargetBundle } : {}) };
    }, body.type);
  });

  app.get('/auth/credentials', { config: { query: accountQuery } }, async (req) => {
    const { accountId } = parseInput(accountQuery, req.query);
    return { data: (await listCredentials(req.ctx, accountId)).map(authMethodResource) };
  });

  app.delete('/auth/credentials/:id', async (req, reply) => {
    const { id } = parseInput(idParams, req.params);
    const o = await revokeCredential(req.ctx, id, signatureHeadersOf(req.headers));
    if (o.kind === 'CHALLENGE') return answer(reply, o, () => undefined);
    return reply.status(204).send();
  });

  app.post('/auth/credentials/:id/challenge', async (req) => {
    const { id } = parseInput(idParams, req.params);
    const r = await challengeCredential(req.ctx, id, parseInput(challengeBody, req.body ?? {}));
    if (r.kind === 'OTP') return { ...authMethodResource(r.credential), otpEncryptionTargetBundle: r.otpEncryptionTargetBundle };
    return { ...authMethodResource(r.credential), challenge: r.challenge, requestId: r.requestId, expiresAt: r.expiresAt.toISOString() };
  });

  app.post('/auth/credentials/:id/verify', async (req, reply) => {
    const { id } = parseInput(idParams, req.params);
    const r = await verifyCredential(req.ctx, id, parseInput(verifyCredentialBody, req.body ?? {}), signatureHeadersOf(req.headers));
    if (r.kind === 'CHALLENGE') {
      reply.status(202);
      return { ...r.challenge, type: r.type };
    }
    return authSessionResource(r.credential, r.session);
  });

  app.get('/auth/sessions', { config: { query: accountQuery } }, async (req) => {
    const { accountId } = parseInput(accountQuery, req.query);
    return { data: (await listSessions(req.ctx, accountId)).map(sessionListItem) };
  });

  app.delete('/auth/sessions/:id', async (req, reply) => {
    const { id } = parseInput(idParams, req.params);
    const o = await revokeSession(req.ctx, id, signatureHeadersOf(req.headers));
    if (o.kind === 'CHALLENGE') return answer(reply, o, () => undefined);
    return reply.status(204).send();
  });

  app.post('/auth/sessions/:id/revoke', { config: { permission: 'MANAGE' } }, async (req) => sessionListItem(await revokeSessionAsPlatform(req.ctx, parseInput(idParams, req.params).id)));

  app.post('/sandbox/internal-accounts/:accountId/receive', { preHandler: sandboxOnly }, async (req) => {
    const { accountId } = parseInput(accountParams, req.params);
    return simulateWalletCredit(req.ctx, accountId, parseInput(receiveBody, req.body ?? {}));
  });

  app.post('/auth/sessions/:id/refresh', async (req, reply) => {
    const { id } = parseInput(idParams, req.params);
    const o = await refreshSession(req.ctx, id, parseInput(refreshBody, req.body ?? {}), signatureHeadersOf(req.headers));
    return answer(reply, o, (r) => {
      reply.status(201);
      return authSessionResource(r.credential, r.session);
    });
  });

  app.post('/auth/delegated-keys', async (req, reply) => {
    const o = await createDelegatedKey(req.ctx, parseInput(delegatedKeyBody, req.body ?? {}), signatureHeadersOf(req.headers));
    return answer(reply, o, (k) => {
      reply.status(201);
      return delegatedKeyResource(k);
    });
  });

  app.get('/auth/delegated-keys', { config: { query: delegatedKeysQuery } }, async (req) => ({ data: (await listDelegatedKeys(req.ctx, parseInput(delegatedKeysQuery, req.query))).map(delegatedKeyResource) }));

  app.get('/auth/delegated-keys/:id', async (req) => delegatedKeyResource(await getDelegatedKey(req.ctx, parseInput(idParams, req.params).id)));

  app.delete('/auth/delegated-keys/:id', async (req, reply) => {
    await revokeDelegatedKey(req.ctx, parseInput(idParams, req.params).id);
    return reply.status(204).send(); // hook:25c — REF: 204, platform credentials alone
  });

  app.patch('/internal-accounts/:accountId', async (req, reply) => {
    const { accountId: id } = parseInput(accountParams, req.params);
    const o = await setWalletPrivacy(req.ctx, id, parseInput(privacyBody, req.body ?? {}), signatureHeadersOf(req.headers));
    return answer(reply, o, (r) => r);
  });

  app.post('/internal-accounts/:accountId/export', async (req, reply) => {
    const { accountId: id } = parseInput(accountParams, req.params);
    const o = await exportWallet(req.ctx, id, parseInput(exportBody, req.body ?? {}), signatureHeadersOf(req.headers));
    return answer(reply, o, (r) => r);
  });
}
