import { createHash, generateKeyPairSync, sign as signEd25519 } from 'node:crypto';
import { bech32m } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1';
import bs58 from 'bs58';
import bs58check from 'bs58check';
import { concat, hexToBytes, keccak256, toBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { validExample } from '../unit/external-accounts/fixtures.js';
import { aCustomer, BASE, createAccount, errorOf, expectStatus } from './helpers.js';

/**
 * Wallet ownership (spec: verify; decisions B§6.4), proven with real keys generated here, on four signature
 * families: EVM (EIP-191), Solana (Ed25519), Bitcoin message signing (BIP-137 and Electrum, Spark wallets) and
 * Tron (TIP-191). The message hashing below is written independently of the server's.
 */

let env: TestEnv;
let p: TestPlatform;
let customerId: string;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform({ counterpartyRules: true });
  customerId = await aCustomer(env, p);
});
afterAll(() => env.close());

interface Wallet {
  type: string;
  currency: string;
  address: string;
  sign(message: string): Promise<string>;
  scheme?: 'bip137' | 'electrum';
}

function evmWallet(type = 'BASE_WALLET', currency = 'USDC'): Wallet {
  const account = privateKeyToAccount(generatePrivateKey());
  return { type, currency, address: account.address, sign: (message) => account.signMessage({ message }) };
}

function solanaWallet(): Wallet {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { type: 'SOLANA_WALLET', currency: 'USDC', address: bs58.encode(x), sign: async (m) => bs58.encode(signEd25519(null, Buffer.from(m, 'utf8'), privateKey)) };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

/** Bitcoin Signed Message: double SHA-256 of the length-prefixed magic and message (short messages: 1-byte lengths). */
function bitcoinHash(message: string): Uint8Array {
  const magic = Buffer.from('Bitcoin Signed Message:\n', 'utf8');
  const body = Buffer.from(message, 'utf8');
  const len = body.length < 0xfd ? Buffer.from([body.length]) : Buffer.from([0xfd, body.length & 0xff, body.length >> 8]);
  return sha256(sha256(Buffer.concat([Buffer.from([magic.length]), magic, len, body])));
}

/** A Spark wallet: bech32m `spark1…` carrying the compressed identity key; signs as a Bitcoin wallet would. */
function sparkWallet(scheme: 'bip137' | 'electrum', headerBase: number): Wallet {
  const priv = secp256k1.utils.randomPrivateKey();
  const pub = secp256k1.getPublicKey(priv, true);
  const address = bech32m.encode('spark', bech32m.toWords(Uint8Array.from([0x0a, 0x21, ...pub])), false);
  return {
    type: 'SPARK_WALLET',
    currency: 'BTC',
    address,
    scheme,
    sign: async (m) => {
      const sig = secp256k1.sign(bitcoinHash(m), priv);
      return Buffer.concat([Buffer.from([headerBase + sig.recovery]), Buffer.from(sig.toCompactRawBytes())]).toString('base64');
    },
  };
}

function tronWallet(): Wallet {
  const account = privateKeyToAccount(generatePrivateKey());
  const address = bs58check.encode(Uint8Array.from([0x41, ...hexToBytes(account.address)]));
  return {
    type: 'TRON_WALLET',
    currency: 'USDT',
    address,
    sign: async (m) => {
      const body = toBytes(m);
      return account.sign({ hash: keccak256(concat([toBytes(`\x19TRON Signed Message:\n${body.length}`), body])) });
    },
  };
}

async function newWallet(w: Wallet, scope: 'customers' | 'platform' = 'customers', platform = p) {
  const payload = { currency: w.currency, ownershipType: 'FIRST_PARTY', accountInfo: { accountType: w.type, address: w.address }, ...(scope === 'customers' ? { customerId: platform === p ? customerId : await aCustomer(env, platform) } : {}) };
  const res = await createAccount(platform, payload, scope);
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return { id: body.id as string, status: body.status as string, base: `/${scope}/external-accounts/${body.id}` };
}

async function challenge(platform: TestPlatform, base: string, method = 'WALLET_SIGNATURE') {
  return platform.request({ method: 'POST', url: `${base}/challenge`, payload: { method } });
}

async function verify(platform: TestPlatform, base: string, signature: string, scheme?: string) {
  return platform.request({ method: 'POST', url: `${base}/verify`, payload: { signature, ...(scheme ? { signatureScheme: scheme } : {}) } });
}

const statusOf = async (base: string, platform = p) => (await platform.request({ method: 'GET', url: base })).json().status;

describe('a real signature over the exact message makes the wallet ACTIVE', () => {
  const families: Array<[string, () => Wallet, 'customers' | 'platform']> = [
    ['EVM on Base (EIP-191)', () => evmWallet(), 'customers'],
    ['EVM on Ethereum, platform wallet', () => evmWallet('ETHEREUM_WALLET', 'USDT'), 'platform'],
    ['EVM on Polygon', () => evmWallet('POLYGON_WALLET'), 'customers'],
    ['EVM on Plasma', () => evmWallet('PLASMA_WALLET', 'USDT'), 'platform'],
    ['Solana (Ed25519, base58)', solanaWallet, 'customers'],
    ['Solana, platform wallet', solanaWallet, 'platform'],
    ['Bitcoin BIP-137 P2WPKH header (Spark)', () => sparkWallet('bip137', 39), 'customers'],
    ['Bitcoin BIP-137 P2PKH compressed header (Spark)', () => sparkWallet('bip137', 31), 'platform'],
    ['Bitcoin Electrum (Spark)', () => sparkWallet('electrum', 31), 'customers'],
    ['Tron (TIP-191)', tronWallet, 'customers'],
  ];

  it.each(families)('%s', async (_name, make, scope) => {
    const w = make();
    const account = await newWallet(w, scope);
    expect(account.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const c = expectStatus(await challenge(p, account.base), 201, 'POST', `${BASE}${account.base.replace(account.id, '{externalAccountId}')}/challenge`);
    expect(c).toMatchObject({ method: 'WALLET_SIGNATURE', messageToSign: expect.stringContaining(w.address) });
    expect(Date.parse(c.expiresAt)).toBeGreaterThan(Date.now());
    const res = await verify(p, account.base, await w.sign(c.messageToSign), w.scheme);
    const body = expectStatus(res, 200, 'POST', `${BASE}/${scope}/external-accounts/{externalAccountId}/verify`);
    expect(body).toMatchObject({ id: account.id, status: 'ACTIVE' });
    // The challenge is consumed: nothing is outstanding any more.
    errorOf(await verify(p, account.base, await w.sign(c.messageToSign), w.scheme), 409, 'CONFLICT');
  });
});

describe('failures', () => {
  it('a signature by another key is 400 and UNVERIFIED; a new challenge returns to PENDING_OWNERSHIP_VERIFICATION', async () => {
    const w = evmWallet();
    const account = await newWallet(w);
    const c = (await challenge(p, account.base)).json();
    const { fields } = errorOf(await verify(p, account.base, await evmWallet().sign(c.messageToSign)), 400, 'INVALID_INPUT');
    expect(fields).toEqual(['signature']);
    expect(await statusOf(account.base)).toBe('UNVERIFIED');
    errorOf(await verify(p, account.base, await w.sign(c.messageToSign)), 409, 'CONFLICT');
    const again = (await challenge(p, account.base)).json();
    expect(await statusOf(account.base)).toBe('PENDING_OWNERSHIP_VERIFICATION');
    expect(again.messageToSign).not.toBe(c.messageToSign);
    expect((await verify(p, account.base, await w.sign(again.messageToSign))).json().status).toBe('ACTIVE');
  });

  it('a signature over a different message (the abandoned challenge\'s) does not verify', async () => {
    const w = solanaWallet();
    const account = await newWallet(w);
    const first = (await challenge(p, account.base)).json();
    await challenge(p, account.base);
    errorOf(await verify(p, account.base, await w.sign(first.messageToSign)), 400, 'INVALID_INPUT');
    expect(await statusOf(account.base)).toBe('UNVERIFIED');
  });

  it('a valid signature after expiresAt is 400 and UNVERIFIED', async () => {
    const w = tronWallet();
    const account = await newWallet(w);
    const c = (await challenge(p, account.base)).json();
    env.clock.advance(env.config.EXTERNAL_ACCOUNT_CHALLENGE_TTL_MS + 1000);
    try {
      const { body } = errorOf(await verify(p, account.base, await w.sign(c.messageToSign)), 400, 'INVALID_INPUT');
      expect(body.details.errors[0].message).toMatch(/expired/);
    } finally {
      env.clock.advance(-(env.config.EXTERNAL_ACCOUNT_CHALLENGE_TTL_MS + 1000));
    }
    expect(await statusOf(account.base)).toBe('UNVERIFIED');
  });

  it('an Electrum verification refuses a BIP-137 segwit header', async () => {
    const w = sparkWallet('electrum', 39);
    const account = await newWallet(w);
    const c = (await challenge(p, account.base)).json();
    errorOf(await verify(p, account.base, await w.sign(c.messageToSign), 'electrum'), 400, 'INVALID_INPUT');
  });

  it('garbage signatures are simply invalid (400), never a 500', async () => {
    for (const [make, garbage] of [[evmWallet, '0x1234'], [solanaWallet, '0OIl'], [() => sparkWallet('bip137', 31), 'not base64!'], [tronWallet, 'zz']] as const) {
      const w = make();
      const account = await newWallet(w);
      await challenge(p, account.base);
      errorOf(await verify(p, account.base, garbage), 400, 'INVALID_INPUT');
    }
  });

  it('verify without an outstanding challenge is 409; a missing signature is 400 and consumes nothing', async () => {
    const w = evmWallet();
    const account = await newWallet(w);
    errorOf(await verify(p, account.base, '0x00'), 409, 'CONFLICT');
    await challenge(p, account.base);
    const res = await p.request({ method: 'POST', url: `${account.base}/verify`, payload: {} });
    expect(errorOf(res, 400, 'INVALID_INPUT').fields).toEqual(['signature']);
    expect(await statusOf(account.base)).toBe('PENDING_OWNERSHIP_VERIFICATION');
  });

  it('the sandbox accepts the literal sandbox-valid-signature', async () => {
    const account = await newWallet(evmWallet('POLYGON_WALLET'));
    await challenge(p, account.base);
    expect((await verify(p, account.base, 'sandbox-valid-signature')).json().status).toBe('ACTIVE');
  });
});

describe('who can be challenged', () => {
  it('409 for bank accounts, THIRD_PARTY wallets, Lightning and wallets not awaiting verification', async () => {
    const bank = (await createAccount(p, { ...validExample('USD_ACCOUNT'), customerId })).json();
    const third = validExample('BASE_WALLET');
    third.accountInfo.address = evmWallet().address;
    third.accountInfo.beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Grace Hopper', countryOfResidence: 'DE' };
    const thirdParty = (await createAccount(p, { ...third, customerId, ownershipType: 'THIRD_PARTY' })).json();
    const lightning = (await createAccount(p, { ...validExample('LIGHTNING_ACCOUNT'), customerId, ownershipType: 'FIRST_PARTY' })).json();
    const plain = await env.platform();
    const elsewhere = await newWallet(evmWallet(), 'platform', plain);
    expect(elsewhere.status).toBe('PENDING');
    for (const [platform, id] of [[p, bank.id], [p, thirdParty.id], [p, lightning.id], [plain, elsewhere.id]] as const) {
      errorOf(await challenge(platform, `/customers/external-accounts/${id}`), 409, 'CONFLICT');
    }
    const verified = await newWallet(evmWallet());
    await challenge(p, verified.base);
    await verify(p, verified.base, 'sandbox-valid-signature');
    errorOf(await challenge(p, verified.base), 409, 'CONFLICT');
  });

  it('an unknown method is 400', async () => {
    const account = await newWallet(evmWallet());
    expect(errorOf(await challenge(p, account.base, 'SELFIE'), 400, 'INVALID_INPUT').fields).toEqual(['method']);
  });
});

describe('liveness challenge (asynchronous outcome)', () => {
  it('PASSED makes the wallet ACTIVE, FAILED makes it UNVERIFIED; the link is single-use', async () => {
    const workers = env.startWorkers();
    try {
      const passing = await newWallet(evmWallet());
      const c = expectStatus(await challenge(p, passing.base, 'LIVENESS'), 201, 'POST', `${BASE}/customers/external-accounts/{externalAccountId}/challenge`);
      expect(c).toMatchObject({ method: 'LIVENESS', verificationLink: expect.stringContaining('/sandbox/liveness/'), token: expect.any(String) });
      const link = new URL(c.verificationLink).pathname;
      const page = await env.app.inject({ method: 'GET', url: link });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const posted = await env.app.inject({ method: 'POST', url: link, payload: { outcome: 'PASSED' } });
      expectStatus(posted, 202, 'POST', `${BASE}/sandbox/liveness/{token}`);
      await eventually(async () => (await statusOf(passing.base)) === 'ACTIVE');
      expect((await env.app.inject({ method: 'POST', url: link, payload: { outcome: 'PASSED' } })).statusCode).toBe(404);

      const failing = await newWallet(solanaWallet());
      const f = (await challenge(p, failing.base, 'LIVENESS')).json();
      await env.app.inject({ method: 'POST', url: new URL(f.verificationLink).pathname, payload: { outcome: 'FAILED' } });
      await eventually(async () => (await statusOf(failing.base)) === 'UNVERIFIED');
      // Liveness never uses verify.
      errorOf(await verify(p, failing.base, 'sandbox-valid-signature'), 409, 'CONFLICT');
    } finally {
      await workers.close();
    }
  });
});
