import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { validExample } from '../unit/external-accounts/fixtures.js';
import { createAccount } from './helpers.js';

/** With EXTERNAL_ACCOUNT_ENCRYPTION_KEY set, bank identifiers are sealed at rest and read back in clear. */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ EXTERNAL_ACCOUNT_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
});
afterAll(() => env.close());

it('stores IBANs and account numbers sealed (AES-256-GCM) and answers them in clear', async () => {
  const p = await env.platform();
  const example = validExample('EUR_ACCOUNT');
  const created = (await createAccount(p, example, 'platform')).json();
  expect(created.accountInfo.iban).toBe(example.accountInfo.iban);
  const row = await env.deps.prisma.externalAccount.findFirstOrThrow({ where: { id: created.id } });
  const stored = row.accountInfo as Record<string, string>;
  expect(stored.iban).toMatch(/^enc:v1:/);
  expect(JSON.stringify(row.accountInfo)).not.toContain(example.accountInfo.iban);
  expect(stored.bankName).toBe(example.accountInfo.bankName);
  expect((await p.request({ method: 'GET', url: `/platform/external-accounts/${created.id}` })).json().accountInfo.iban).toBe(example.accountInfo.iban);
  // The duplicate rule still works on sealed data (it compares a hash of the clear identifiers).
  expect((await createAccount(p, example, 'platform')).statusCode).toBe(409);
});
