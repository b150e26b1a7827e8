import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildAdapters, builtInNames, type AdapterSinks } from '../../src/adapters/registry.js';
import { ADAPTER_KINDS } from '../../src/adapters/common.js';
import { BUILT_IN_ADAPTERS, parseRailAdapters, adapterSettings } from '../../src/adapters/selection.js';
import { systemClock } from '../../src/platform/clock.js';
import { createRedis } from '../../src/platform/redis.js';
import { testSigner } from '../contracts/context.js';
import { createTestEnv, type TestEnv } from '../helpers/app.js';

const sinks: AdapterSinks = {
  reportPayout: async () => 'ACCEPTED',
  kycCaseUpdated: async () => 'ACCEPTED',
  livenessOutcome: async () => 'ACCEPTED',
  beneficiaryCheckUpdated: async () => 'ACCEPTED',
  issuerOperationUpdated: async () => 'ACCEPTED',
};
const BASE_ENV = { DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x' };
const redis = createRedis(inject('redisUrl'));
afterAll(() => redis.quit());

const build = (env: Record<string, string>) =>
  buildAdapters({ config: loadConfig({ ...BASE_ENV, ...env }), clock: systemClock, logger: pino({ level: 'silent' }), redis, prisma: {} as never, signer: testSigner() as never, sinks });

/** Adapter modules written for these tests, in a temporary directory. */
const dir = mkdtempSync(path.join(tmpdir(), 'svc-adapters-'));
const moduleFile = (name: string, source: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, source);
  return file;
};
const goodRail = moduleFile(
  'good-rail.mjs',
  `export const id = 'good-rail'; export const kind = 'rail';
   export function create(config, context) {
     if (!config.TOKEN) throw new Error('ADAPTER_GOOD_RAIL_TOKEN: is required');
     return { id, rails: ['RTP', 'FEDNOW'], submitPayout: async () => ({}), getPayoutStatus: async (r) => ({ status: 'PENDING', reference: r }), refundPayout: async () => ({}) };
   }`,
);

describe('RAIL_ADAPTERS syntax (checked by loadConfig)', () => {
  it('parses rails, module paths and the * default', () => {
    const { selection, problems } = parseRailAdapters('ACH:sandbox, RTP:./adapters/my-bank.js,WIRE:http,*:./x/default.js');
    expect(problems).toEqual([]);
    expect(selection).toEqual({ fallback: './x/default.js', byRail: { ACH: 'sandbox', RTP: './adapters/my-bank.js', WIRE: 'http' } });
    expect(parseRailAdapters('').selection).toEqual({ fallback: 'sandbox', byRail: {} });
  });

  it('an unknown rail, a missing adapter or a rail named twice stops start-up with a clear message', () => {
    expect(() => loadConfig({ ...BASE_ENV, RAIL_ADAPTERS: 'FEDNWO:http' })).toThrow(/RAIL_ADAPTERS: unknown rail FEDNWO/);
    expect(() => loadConfig({ ...BASE_ENV, RAIL_ADAPTERS: 'RTP' })).toThrow(/RAIL_ADAPTERS: "RTP" must be RAIL:adapter/);
    expect(() => loadConfig({ ...BASE_ENV, RAIL_ADAPTERS: 'RTP:http,RTP:sandbox' })).toThrow(/RTP is named twice/);
  });

  it('an unknown built-in adapter name stops start-up at once, for every kind', () => {
    expect(() => loadConfig({ ...BASE_ENV, RAIL_ADAPTERS: 'WIRE:carrier-pigeon' })).toThrow(/RAIL_ADAPTERS: WIRE: unknown rail adapter "carrier-pigeon" \(built-in: sandbox, http/);
    expect(() => loadConfig({ ...BASE_ENV, KYC_PROVIDER: 'acme-kyc' })).toThrow(/KYC_PROVIDER: unknown kyc adapter "acme-kyc"/);
    expect(() => loadConfig({ ...BASE_ENV, NOTIFIER: 'twilio' })).toThrow(/NOTIFIER: unknown notifier adapter/);
    expect(() => loadConfig({ ...BASE_ENV, DOCUMENT_STORAGE: 'gcs' })).toThrow(/DOCUMENT_STORAGE: unknown storage adapter "gcs" \(built-in: local, s3/);
    expect(() => loadConfig({ ...BASE_ENV, LIVENESS_PROVIDER: 'acme' })).toThrow(/LIVENESS_PROVIDER/);
    expect(() => loadConfig({ ...BASE_ENV, BENEFICIARY_CHECK_PROVIDER: 'acme' })).toThrow(/BENEFICIARY_CHECK_PROVIDER/);
    // Module paths are checked when the adapters are built (they may not exist at config time in tests).
    expect(loadConfig({ ...BASE_ENV, KYC_PROVIDER: './adapters/acme-kyc.js' }).KYC_PROVIDER).toBe('./adapters/acme-kyc.js');
  });

  it('the built-in names config.ts accepts are the ones the registry builds', () => {
    for (const kind of ADAPTER_KINDS) expect(builtInNames(kind).sort(), kind).toEqual([...BUILT_IN_ADAPTERS[kind]].sort());
  });

  it('adapter settings come from ADAPTER_<ID>_* over ADAPTER_<ID>_JSON', () => {
    expect(adapterSettings({ ADAPTER_MY_BANK_JSON: '{"URL":"http://a","RETRIES":3}', ADAPTER_MY_BANK_URL: 'http://b', ADAPTER_OTHER_URL: 'x' }, 'MY_BANK')).toEqual({ URL: 'http://b', RETRIES: '3' });
    expect(() => adapterSettings({ ADAPTER_MY_BANK_JSON: '[1]' }, 'MY_BANK')).toThrow(/ADAPTER_MY_BANK_JSON: must be a JSON object/);
  });
});

describe('building the adapters at start', () => {
  it('defaults to the sandbox everywhere in sandbox', async () => {
    const a = await build({});
    expect(a.summary).toEqual({ 'rail:*': 'sandbox', kyc: 'sandbox', fx: 'sandbox', notifier: 'sandbox', liveness: 'sandbox', storage: 'local', 'beneficiary-check': 'sandbox', 'bank-link': 'sandbox', uma: 'sandbox', deposits: 'sandbox', 'stablecoin-issuer': 'sandbox', 'card-issuer': 'card-sandbox', collection: 'collection-sandbox' });
    expect(a.liveness).toBeDefined();
  });

  it('routes each rail to its adapter, a module by its path, with its own settings', async () => {
    const a = await build({ RAIL_ADAPTERS: `RTP:${goodRail},FEDNOW:${goodRail}`, ADAPTER_GOOD_RAIL_TOKEN: 't' });
    expect(a.rails.forRail('RTP').id).toBe('good-rail');
    expect(a.rails.forRail('FEDNOW')).toBe(a.rails.forRail('RTP'));
    expect(a.rails.forRail('ACH').id).toBe('sandbox');
    // Answers from outside are read defensively: an empty object is PENDING with the asked reference.
    expect(await a.rails.forRail('RTP').getPayoutStatus('ref-1')).toEqual({ status: 'PENDING', reference: 'ref-1' });
  });

  it('in production: no sandbox liveness or beneficiary check unless asked, and asking for them stops start-up', async () => {
    const prod = { SVC_ENV: 'production', WEBHOOK_SIGNING_KEY: testPem(), EXTERNAL_ACCOUNT_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
    const a = await build(prod);
    expect(a.liveness).toBeUndefined();
    expect(a.beneficiaryCheck.id).toBe('none');
    // Issue 27: no card issuer unless configured (every /cards path answers 501), and the sandbox one is refused.
    expect(a.cardIssuer).toBeUndefined();
    await expect(build({ ...prod, CARD_ISSUER: 'sandbox' })).rejects.toThrow(/CARD_ISSUER = sandbox: the sandbox card issuer exists only with SVC_ENV=sandbox/);
    await expect(build({ CARD_ISSUER: 'http' })).rejects.toThrow(/ADAPTER_CARD_HTTP_URL/);
    await expect(build({ ...prod, LIVENESS_PROVIDER: 'sandbox' })).rejects.toThrow(/LIVENESS_PROVIDER = sandbox: the sandbox liveness provider exists only with SVC_ENV=sandbox/);
  });

  it('every problem is listed in one ConfigError: unknown names, missing modules, bad exports, refused settings', async () => {
    const noCreate = moduleFile('no-create.mjs', `export const id = 'x';`);
    const wrongKind = moduleFile('kyc-thing.mjs', `export const kind = 'kyc'; export function create() { return {}; }`);
    const wrongId = moduleFile('wrong-id.mjs', `export function create() { return { id: 'other', submitPayout() {}, getPayoutStatus() {}, refundPayout() {} }; }`);
    const err = await build({
      RAIL_ADAPTERS: `ACH:${goodRail},SEPA:./nope/missing.js,PIX:${noCreate},SPEI:${wrongKind},UPI:${wrongId},RTP:http`,
      FX_PROVIDER: './missing-fx.js',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toMatch(/^Invalid adapter configuration/);
    expect(message).toMatch(/RAIL_ADAPTERS ACH = .*good-rail\.mjs: ADAPTER_GOOD_RAIL_TOKEN: is required/);
    expect(message).toMatch(/RAIL_ADAPTERS SEPA = \.\/nope\/missing\.js: module not found/);
    expect(message).toMatch(/no-create\.mjs exports no create\(config, context\) function/);
    expect(message).toMatch(/kyc-thing\.mjs is a kyc adapter, configured as a rail adapter/);
    expect(message).toMatch(/the adapter's id is "other" but it is configured as "wrong-id"/);
    expect(message).toMatch(/RAIL_ADAPTERS RTP = http: ADAPTER_HTTP_URL: .*ADAPTER_HTTP_PUBLIC_KEY/);
    expect(message).toMatch(/FX_PROVIDER = \.\/missing-fx\.js: module not found/);
  });

  it('built-ins check their settings too (S3 storage without a bucket)', async () => {
    await expect(build({ DOCUMENT_STORAGE: 's3' })).rejects.toThrow(/DOCUMENT_STORAGE = s3: S3_BUCKET: is required when DOCUMENT_STORAGE=s3/);
  });

  it('UMA counterparties and deposit detectors are built, checked and guarded like the other kinds', async () => {
    expect(() => loadConfig({ ...BASE_ENV, UMA_PROVIDER: 'carrier-pigeon' })).toThrow(/UMA_PROVIDER: unknown uma adapter "carrier-pigeon" \(built-in: sandbox, uma-protocol/);
    const a = await build({});
    expect(a.deposits.matchKeyOf({ reference: 'rtf-1' })).toBe('REF:RTF-1');
    await expect(a.uma.lookup({ receiverUmaAddress: '$nobody@sandbox.uma', senderUmaAddress: '$me@x.example' })).rejects.toMatchObject({ code: 'UMA_NOT_FOUND' });
    // An operator's module: a missing method stops start-up; a call that never answers is abandoned at PROVIDER_TIMEOUT_MS.
    const halfUma = moduleFile('half-uma.mjs', `export const id = 'half-uma'; export function create() { return { id, lookup: async () => ({}) }; }`);
    await expect(build({ UMA_PROVIDER: halfUma })).rejects.toThrow(/UMA_PROVIDER = .*half-uma\.mjs: a uma adapter needs payRequest\(\)/);
    const stuckUma = moduleFile('stuck-uma.mjs', `export const id = 'stuck-uma'; export function create() { return { id, lookup: () => new Promise(() => {}), payRequest: () => new Promise(() => {}) }; }`);
    const stuck = await build({ UMA_PROVIDER: stuckUma, PROVIDER_TIMEOUT_MS: '100' });
    expect(stuck.summary.uma).toBe('stuck-uma');
    await expect(stuck.uma.lookup({ receiverUmaAddress: '$a@b.example', senderUmaAddress: '$me@x.example' })).rejects.toThrow(/uma adapter stuck-uma: lookup did not answer within 100 ms/);
  });

  it('a rail the adapter says it does not serve is refused', async () => {
    await expect(build({ RAIL_ADAPTERS: `ACH:${goodRail}`, ADAPTER_GOOD_RAIL_TOKEN: 't' })).rejects.toThrow(/RAIL_ADAPTERS ACH = .*: the adapter serves only RTP, FEDNOW/);
  });
});

describe('a misconfigured adapter stops the processes at start', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  const run = (entry: string, extra: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', entry], {
        env: { ...process.env, DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, REDIS_PREFIX: env.config.REDIS_PREFIX, LOG_LEVEL: 'silent', PORT: '0', ...extra },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += String(d)));
      // A backstop only (the process exits at once on a misconfiguration): tsx compiles the entry first,
      // which takes long on a loaded machine.
      const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });

  it.each(['src/server.ts', 'src/worker.ts'])('%s exits 1 naming the adapter and the setting', async (entry) => {
    const { code, stderr } = await run(entry, { RAIL_ADAPTERS: 'WIRE:http', ADAPTER_HTTP_URL: 'http://127.0.0.1:9' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/Invalid adapter configuration/);
    expect(stderr).toMatch(/RAIL_ADAPTERS WIRE = http: ADAPTER_HTTP_PUBLIC_KEY: is required/);
  }, 180_000);
});

function testPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
