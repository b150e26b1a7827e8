import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountType } from '../../src/domains/external-accounts/account-types.js';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { bolt11Invoice, company, EXAMPLE_TYPES, IBANS, validExample } from '../unit/external-accounts/fixtures.js';
import { aCustomer, BASE, createAccount, deleteCustomer, errorOf, expectStatus, ITEM } from './helpers.js';

/**
 * POST /customers/external-accounts end to end, table-driven over every accountType: one valid account per type
 * (the body matches openapi.yaml's discriminated union) and, per type, several invalid ones whose 400 body names
 * the field. The validator's full constraint matrix is in test/unit/external-accounts.
 */

let env: TestEnv;
let p: TestPlatform;
let customerId: string;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  customerId = await aCustomer(env, p);
});
afterAll(() => env.close());

const CREATE = `${BASE}/customers/external-accounts`;

type Change = (info: Record<string, any>) => void;
/** Per type: [what is wrong, change to a valid example, expected code, expected field]. */
const INVALID: Record<AccountType, Array<[string, Change, 'INVALID_INPUT' | 'INVALID_BANK_ACCOUNT', string]>> = {
  USD_ACCOUNT: [
    ['routing number of 8 digits', (i) => (i.routingNumber = '02100002'), 'INVALID_INPUT', 'accountInfo.routingNumber'],
    ['routing number failing ABA checksum', (i) => (i.routingNumber = '021000022'), 'INVALID_BANK_ACCOUNT', 'accountInfo.routingNumber'],
    ['account number of 3 digits', (i) => (i.accountNumber = '123'), 'INVALID_INPUT', 'accountInfo.accountNumber'],
    ['bankAccountType MONEY_MARKET', (i) => (i.bankAccountType = 'MONEY_MARKET'), 'INVALID_INPUT', 'accountInfo.bankAccountType'],
    ['beneficiary without address', (i) => delete i.beneficiary.address, 'INVALID_INPUT', 'accountInfo.beneficiary.address'],
  ],
  MXN_ACCOUNT: [
    ['CLABE of 17 digits', (i) => (i.clabeNumber = '03218000011835971'), 'INVALID_INPUT', 'accountInfo.clabeNumber'],
    ['CLABE with a wrong check digit', (i) => (i.clabeNumber = '032180000118359718'), 'INVALID_BANK_ACCOUNT', 'accountInfo.clabeNumber'],
  ],
  BRL_ACCOUNT: [
    ['unknown pixKeyType', (i) => (i.pixKeyType = 'IBAN'), 'INVALID_INPUT', 'accountInfo.pixKeyType'],
    ['CPF with wrong check digits', (i) => ((i.pixKey = '52998224724'), (i.taxId = '52998224724')), 'INVALID_BANK_ACCOUNT', 'accountInfo.pixKey'],
  ],
  COP_ACCOUNT: [
    ['bank and mobile fields together', (i) => (i.phoneNumber = '+573001234567'), 'INVALID_INPUT', 'accountInfo.phoneNumber'],
    ['no bankAccountType', (i) => delete i.bankAccountType, 'INVALID_INPUT', 'accountInfo.bankAccountType'],
  ],
  SLV_ACCOUNT: [['phone not E.164', (i) => (i.phoneNumber = '71234567'), 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  EUR_ACCOUNT: [
    ['IBAN with wrong mod-97', (i) => (i.iban = 'DE89370400440532013001'), 'INVALID_BANK_ACCOUNT', 'accountInfo.iban'],
    ['beneficiary individual without postalCode', (i) => delete i.beneficiary.address.postalCode, 'INVALID_INPUT', 'accountInfo.beneficiary.address.postalCode'],
  ],
  PHP_ACCOUNT: [
    ['bank not in discovery', (i) => (i.bankName = 'NOT_A_BANK'), 'INVALID_INPUT', 'accountInfo.bankName'],
    ['account number of 7 digits', (i) => (i.accountNumber = '1234567'), 'INVALID_INPUT', 'accountInfo.accountNumber'],
  ],
  GBP_ACCOUNT: [
    ['sort code of 5 digits', (i) => (i.sortCode = '60161'), 'INVALID_INPUT', 'accountInfo.sortCode'],
    ['account number of 9 digits', (i) => (i.accountNumber = '319268190'), 'INVALID_INPUT', 'accountInfo.accountNumber'],
  ],
  INR_ACCOUNT: [
    ['IFSC without its 0', (i) => (i.ifsc = 'SBIN1001234'), 'INVALID_INPUT', 'accountInfo.ifsc'],
    ['rail IMPS', (i) => (i.rail = 'IMPS'), 'INVALID_INPUT', 'accountInfo.rail'],
  ],
  NGN_ACCOUNT: [['account number of 9 digits', (i) => (i.accountNumber = '012345678'), 'INVALID_INPUT', 'accountInfo.accountNumber']],
  ZAR_ACCOUNT: [['account number of 14 digits', (i) => (i.accountNumber = '12345678901234'), 'INVALID_INPUT', 'accountInfo.accountNumber']],
  CAD_ACCOUNT: [
    ['bank code of 4 digits', (i) => (i.bankCode = '0003'), 'INVALID_INPUT', 'accountInfo.bankCode'],
    ['branch code of 4 digits', (i) => (i.branchCode = '1234'), 'INVALID_INPUT', 'accountInfo.branchCode'],
  ],
  AED_ACCOUNT: [
    ['a German IBAN', (i) => (i.iban = IBANS.DE), 'INVALID_INPUT', 'accountInfo.iban'],
    ['beneficiary without address', (i) => delete i.beneficiary.address, 'INVALID_INPUT', 'accountInfo.beneficiary.address'],
  ],
  ILS_ACCOUNT: [['IBAN with wrong mod-97', (i) => (i.iban = 'IL620108000000099999998'), 'INVALID_BANK_ACCOUNT', 'accountInfo.iban']],
  BDT_ACCOUNT: [['no bankName', (i) => delete i.bankName, 'INVALID_INPUT', 'accountInfo.bankName']],
  BWP_ACCOUNT: [['unknown provider', (i) => (i.provider = 'SOMEONE'), 'INVALID_INPUT', 'accountInfo.provider']],
  CNY_ACCOUNT: [
    ['wallet name not allowed', (i) => (i.bankName = 'PAYPAL'), 'INVALID_INPUT', 'accountInfo.bankName'],
    ['bank transfer to an individual', (i) => (delete i.phoneNumber, (i.bankName = 'BANK_OF_CHINA'), (i.accountNumber = '6222021234567890123')), 'INVALID_INPUT', 'accountInfo.beneficiary.beneficiaryType'],
  ],
  EGP_ACCOUNT: [['IBAN of another length', (i) => (i.iban = 'EG38001900050000000026318000'), 'INVALID_INPUT', 'accountInfo.iban']],
  GHS_ACCOUNT: [['neither account number nor phone', (i) => delete i.phoneNumber, 'INVALID_INPUT', 'accountInfo.accountNumber']],
  GTQ_ACCOUNT: [['beneficiary without phone', (i) => delete i.beneficiary.phoneNumber, 'INVALID_INPUT', 'accountInfo.beneficiary.phoneNumber']],
  HTG_ACCOUNT: [['no phone', (i) => delete i.phoneNumber, 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  JMD_ACCOUNT: [['branch code of 6 digits', (i) => (i.branchCode = '123456'), 'INVALID_INPUT', 'accountInfo.branchCode']],
  PKR_ACCOUNT: [['IBAN of the wrong shape', (i) => (i.iban = 'PK36SCBL00000011234567'), 'INVALID_INPUT', 'accountInfo.iban']],
  KES_ACCOUNT: [
    ['Tanzanian phone', (i) => (i.phoneNumber = '+255712345678'), 'INVALID_INPUT', 'accountInfo.phoneNumber'],
    ['no provider', (i) => delete i.provider, 'INVALID_INPUT', 'accountInfo.provider'],
  ],
  TZS_ACCOUNT: [['phone with 8 digits', (i) => (i.phoneNumber = '+25571234567'), 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  ZMW_ACCOUNT: [['provider of another country', (i) => (i.provider = 'KES_MOBILE_1'), 'INVALID_INPUT', 'accountInfo.provider']],
  RWF_ACCOUNT: [['Kenyan phone', (i) => (i.phoneNumber = '+254712345678'), 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  MWK_ACCOUNT: [['phone with 10 digits', (i) => (i.phoneNumber = '+2659912345678'), 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  UGX_ACCOUNT: [['unknown provider', (i) => (i.provider = 'UGX_MOBILE_3'), 'INVALID_INPUT', 'accountInfo.provider']],
  XOF_ACCOUNT: [['Ivorian phone with 9 digits', (i) => (i.phoneNumber = '+225123456789'), 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  XAF_ACCOUNT: [['region GA', (i) => (i.region = 'GA'), 'INVALID_INPUT', 'accountInfo.region']],
  DKK_ACCOUNT: [['IBAN with wrong mod-97', (i) => (i.iban = 'DK5000400440116242'), 'INVALID_BANK_ACCOUNT', 'accountInfo.iban']],
  HKD_ACCOUNT: [['no swiftCode', (i) => delete i.swiftCode, 'INVALID_INPUT', 'accountInfo.swiftCode']],
  IDR_ACCOUNT: [['phone outside Indonesia', (i) => (i.phoneNumber = '+6591234567'), 'INVALID_INPUT', 'accountInfo.phoneNumber']],
  MYR_ACCOUNT: [['BIC of 9 characters', (i) => (i.swiftCode = 'MBBEMYKL1'), 'INVALID_INPUT', 'accountInfo.swiftCode']],
  THB_ACCOUNT: [['BIC of an unknown country', (i) => (i.swiftCode = 'BKKBXXBK'), 'INVALID_BANK_ACCOUNT', 'accountInfo.swiftCode']],
  VND_ACCOUNT: [['no accountNumber', (i) => delete i.accountNumber, 'INVALID_INPUT', 'accountInfo.accountNumber']],
  SGD_ACCOUNT: [['account number with a dash', (i) => (i.accountNumber = '012-345'), 'INVALID_INPUT', 'accountInfo.accountNumber']],
  SWIFT_ACCOUNT: [['neither accountNumber nor iban', (i) => delete i.iban, 'INVALID_INPUT', 'accountInfo.accountNumber']],
  BASE_WALLET: [['address failing EIP-55', (i) => (i.address = i.address.slice(0, -1) + (i.address.endsWith('a') ? 'A' : 'a')), 'INVALID_BANK_ACCOUNT', 'accountInfo.address']],
  ETHEREUM_WALLET: [['address of 39 hex digits', (i) => (i.address = i.address.slice(0, -1)), 'INVALID_INPUT', 'accountInfo.address']],
  POLYGON_WALLET: [['no address', (i) => delete i.address, 'INVALID_INPUT', 'accountInfo.address']],
  PLASMA_WALLET: [['address without 0x', (i) => (i.address = i.address.slice(2)), 'INVALID_INPUT', 'accountInfo.address']],
  SOLANA_WALLET: [['address decoding to 31 bytes', (i) => (i.address = '1111111111111111111111111111111'), 'INVALID_INPUT', 'accountInfo.address']],
  TRON_WALLET: [['address with a broken checksum', (i) => (i.address = i.address.slice(0, -1) + (i.address.endsWith('1') ? '2' : '1')), 'INVALID_BANK_ACCOUNT', 'accountInfo.address']],
  SPARK_WALLET: [['address with a broken checksum', (i) => (i.address = i.address.slice(0, -1) + (i.address.endsWith('q') ? 'p' : 'q')), 'INVALID_BANK_ACCOUNT', 'accountInfo.address']],
  LIGHTNING: [['invoice and address at once', (i) => (i.lightningAddress = 'satoshi@example.com'), 'INVALID_INPUT', 'accountInfo.invoice']],
  LIGHTNING_ACCOUNT: [['invoice with a broken checksum', (i) => (delete i.lightningAddress, (i.invoice = bolt11Invoice.slice(0, -1) + 'q')), 'INVALID_BANK_ACCOUNT', 'accountInfo.invoice']],
};

const isWallet = (t: AccountType) => t.endsWith('_WALLET') || t.startsWith('LIGHTNING');

describe('every accountType: one valid account, several invalid ones', () => {
  it('has invalid cases for every spec accountType', () => {
    expect(Object.keys(INVALID).sort()).toEqual([...EXAMPLE_TYPES].sort());
  });

  it.each(EXAMPLE_TYPES)('%s: a valid account is 201 with its fields, PENDING, and as openapi.yaml documents it', async (type) => {
    const example = validExample(type);
    const res = await createAccount(p, { ...example, customerId, platformAccountId: `mine-${type}` });
    const body = expectStatus(res, 201, 'POST', CREATE);
    expect(body).toMatchObject({ customerId, currency: example.currency, status: 'PENDING', platformAccountId: `mine-${type}`, beneficiaryVerificationStatus: 'PENDING' });
    expect(body.accountInfo.accountType).toBe(type);
    expect(body.id).toMatch(/^ExternalAccount:/);
    const read = expectStatus(await p.request({ method: 'GET', url: `/customers/external-accounts/${body.id}` }), 200, 'GET', ITEM);
    expect(read).toEqual(body);
  });

  const cases = EXAMPLE_TYPES.flatMap((type) => INVALID[type].map(([what, change, code, field]) => [type, what, code, field, change] as const));
  it.each(cases)('%s: %s → 400 %s on %s', async (type, _what, code, field, change) => {
    const example = validExample(type);
    change(example.accountInfo);
    const { fields, body } = errorOf(await createAccount(p, { ...example, customerId }), 400, code);
    expect(fields).toContain(field);
    expectStatus(await createAccount(p, { ...example, customerId }), 400, 'POST', CREATE);
    for (const e of body.details.errors) expect(typeof e.message).toBe('string');
  });

  it.each(EXAMPLE_TYPES.filter((t) => t !== 'SWIFT_ACCOUNT'))('%s: a currency the type does not hold → 400 on currency', async (type) => {
    const example = validExample(type);
    const { fields } = errorOf(await createAccount(p, { ...example, currency: example.currency === 'JPY' ? 'USD' : 'JPY', customerId }), 400, 'INVALID_INPUT');
    expect(fields).toContain('currency');
  });

  it.each(EXAMPLE_TYPES.filter((t) => !isWallet(t)))('%s: a fiat account without beneficiary → 400 on accountInfo.beneficiary', async (type) => {
    const example = validExample(type);
    delete example.accountInfo.beneficiary;
    const { fields } = errorOf(await createAccount(p, { ...example, customerId }), 400, 'INVALID_INPUT');
    expect(fields).toContain('accountInfo.beneficiary');
  });
});

describe('request-level rules', () => {
  it('names every bad field at once, top level and accountInfo alike', async () => {
    const example = validExample('USD_ACCOUNT');
    delete example.accountInfo.routingNumber;
    example.accountInfo.beneficiary.fullName = '';
    const { fields } = errorOf(await createAccount(p, { ...example, ownershipType: 'SOMEONE', platformAccountId: '' }), 400, 'INVALID_INPUT');
    expect(fields).toEqual(expect.arrayContaining(['ownershipType', 'platformAccountId', 'accountInfo.routingNumber', 'accountInfo.beneficiary.fullName']));
  });

  it('accepts and ignores paymentRails and countries on input (REF\'s client sends them), and computes the rails', async () => {
    const example = validExample('USD_ACCOUNT');
    const res = await createAccount(p, { ...example, customerId: await aCustomer(env, p), accountInfo: { ...example.accountInfo, paymentRails: ['ACH'], countries: ['US'] } });
    expect(res.statusCode).toBe(201);
    expect(res.json().accountInfo.paymentRails).toEqual(['ACH', 'WIRE', 'RTP', 'FEDNOW']);
    expect(res.json().accountInfo.countries).toBeUndefined();
  });

  it('an unknown accountType is 400 with the allowed values', async () => {
    const { body } = errorOf(await createAccount(p, { currency: 'USD', accountInfo: { accountType: 'ZZZ_ACCOUNT' } }), 400, 'INVALID_INPUT');
    expect(body.details.errors[0]).toMatchObject({ field: 'accountInfo.accountType', constraint: { enum: expect.arrayContaining(['USD_ACCOUNT', 'LIGHTNING_ACCOUNT']) } });
  });

  it('an unknown, deleted or other platform\'s customer is 404 USER_NOT_FOUND', async () => {
    const other = await env.platform();
    const foreign = await aCustomer(env, other);
    const gone = await aCustomer(env, p);
    await deleteCustomer(env, gone);
    for (const id of [foreign, gone, 'Customer:00000000-0000-7000-8000-000000000000']) {
      errorOf(await createAccount(p, { ...validExample('GBP_ACCOUNT'), customerId: id }), 404, 'USER_NOT_FOUND');
    }
  });

  it('a duplicate (same owner, currency and identifiers) is 409 naming the existing account; another owner may hold it', async () => {
    const owner = await aCustomer(env, p);
    const first = (await createAccount(p, { ...validExample('EUR_ACCOUNT'), customerId: owner })).json();
    const printed = validExample('EUR_ACCOUNT');
    printed.accountInfo.iban = 'de89 3704 0044 0532 0130 00';
    const dup = errorOf(await createAccount(p, { ...printed, customerId: owner }), 409, 'CONFLICT');
    expect(dup.body.details).toEqual({ externalAccountId: first.id });
    expect((await createAccount(p, { ...validExample('EUR_ACCOUNT'), customerId: await aCustomer(env, p) })).statusCode).toBe(201);
    expect((await createAccount(p, validExample('EUR_ACCOUNT'), 'platform')).statusCode).toBe(201);
  });

  it('a deleted account no longer blocks re-creating it', async () => {
    const owner = await aCustomer(env, p);
    const first = (await createAccount(p, { ...validExample('NGN_ACCOUNT'), customerId: owner })).json();
    expect((await p.request({ method: 'DELETE', url: `/customers/external-accounts/${first.id}` })).statusCode).toBe(204);
    expect((await createAccount(p, { ...validExample('NGN_ACCOUNT'), customerId: owner })).statusCode).toBe(201);
  });

  it('business senders must give the business beneficiary\'s registrationNumber for GBP', async () => {
    const business = await aCustomer(env, p, { customerType: 'BUSINESS' });
    const example = validExample('GBP_ACCOUNT');
    const { registrationNumber: _omit, ...beneficiary } = company();
    example.accountInfo.beneficiary = beneficiary;
    const { fields } = errorOf(await createAccount(p, { ...example, customerId: business }), 400, 'INVALID_INPUT');
    expect(fields).toContain('accountInfo.beneficiary.registrationNumber');
    expect((await createAccount(p, { ...example, customerId: await aCustomer(env, p) })).statusCode).toBe(201);
  });

  it('accepts the nested businessInfo form for a US business beneficiary', async () => {
    const example = validExample('USD_ACCOUNT');
    const { legalName, taxId, ...rest } = company();
    example.accountInfo.beneficiary = { ...rest, businessInfo: { legalName, taxId } };
    const body = expectStatus(await createAccount(p, { ...example, customerId: await aCustomer(env, p) }), 201, 'POST', CREATE);
    expect(body.accountInfo.beneficiary).toMatchObject({ beneficiaryType: 'BUSINESS', legalName, taxId });
  });

  it('the idempotency key replays the first answer', async () => {
    const owner = await aCustomer(env, p);
    const headers = { 'idempotency-key': `ea-${owner}` };
    const payload = { ...validExample('ZAR_ACCOUNT'), customerId: owner };
    const first = await p.request({ method: 'POST', url: '/customers/external-accounts', payload, headers });
    const again = await p.request({ method: 'POST', url: '/customers/external-accounts', payload, headers });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
  });
});

describe('platform-scoped accounts', () => {
  it('POST /platform/external-accounts creates an account with customerId null; customerId there is refused', async () => {
    const body = expectStatus(await createAccount(p, validExample('MXN_ACCOUNT'), 'platform'), 201, 'POST', `${BASE}/platform/external-accounts`);
    expect(body.customerId).toBeNull();
    const { fields } = errorOf(await createAccount(p, { ...validExample('CAD_ACCOUNT'), customerId }, 'platform'), 400, 'INVALID_INPUT');
    expect(fields).toEqual(['customerId']);
  });

  it('POST /customers/external-accounts without customerId is platform-owned too', async () => {
    const body = (await createAccount(p, validExample('SGD_ACCOUNT'))).json();
    expect(body.customerId).toBeNull();
    const viaPlatform = await p.request({ method: 'GET', url: `/platform/external-accounts/${body.id}` });
    expect(viaPlatform.statusCode).toBe(200);
  });

  it('a customer\'s account is not reachable under /platform', async () => {
    const body = (await createAccount(p, { ...validExample('HKD_ACCOUNT'), customerId })).json();
    errorOf(await p.request({ method: 'GET', url: `/platform/external-accounts/${body.id}` }), 404, 'NOT_FOUND');
    errorOf(await p.request({ method: 'DELETE', url: `/platform/external-accounts/${body.id}` }), 404, 'NOT_FOUND');
  });
});

describe('defaultUmaDepositAccount', () => {
  it('at most one per customer: setting it on a new account moves the flag', async () => {
    const owner = await aCustomer(env, p);
    const a = (await createAccount(p, { ...validExample('USD_ACCOUNT'), customerId: owner, defaultUmaDepositAccount: true })).json();
    expect(a.defaultUmaDepositAccount).toBe(true);
    const other = validExample('USD_ACCOUNT');
    other.accountInfo.accountNumber = '987654321';
    const b = (await createAccount(p, { ...other, customerId: owner, defaultUmaDepositAccount: true })).json();
    expect(b.defaultUmaDepositAccount).toBe(true);
    const aNow = (await p.request({ method: 'GET', url: `/customers/external-accounts/${a.id}` })).json();
    expect(aNow.defaultUmaDepositAccount).toBe(false);
  });

  it('concurrent "make me the default" creations leave exactly one default', async () => {
    const owner = await aCustomer(env, p);
    const results = await Promise.all(
      ['111111111', '222222222', '333333333', '444444444', '555555555', '666666666', '777777777', '888888888'].map((n) => {
        const ex = validExample('USD_ACCOUNT');
        ex.accountInfo.accountNumber = n;
        return createAccount(p, { ...ex, customerId: owner, defaultUmaDepositAccount: true });
      }),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    const list = (await p.request({ method: 'GET', url: `/customers/external-accounts?customerId=${owner}` })).json();
    expect(list.data.filter((x: any) => x.defaultUmaDepositAccount)).toHaveLength(1);
  });

  it('is refused on platform accounts', async () => {
    const { fields } = errorOf(await createAccount(p, { ...validExample('VND_ACCOUNT'), defaultUmaDepositAccount: true }, 'platform'), 400, 'INVALID_INPUT');
    expect(fields).toEqual(['defaultUmaDepositAccount']);
  });
});

describe('counterparty rules (EU Travel Rule platforms)', () => {
  let cp: TestPlatform;
  let cpCustomer: string;
  beforeAll(async () => {
    cp = await env.platform({ counterpartyRules: true });
    cpCustomer = await aCustomer(env, cp);
  });

  it('a self-custody wallet without ownershipType is 400', async () => {
    const { fields } = errorOf(await createAccount(cp, { ...validExample('BASE_WALLET'), customerId: cpCustomer }), 400, 'INVALID_INPUT');
    expect(fields).toEqual(['ownershipType']);
  });

  it('a FIRST_PARTY wallet starts PENDING_OWNERSHIP_VERIFICATION', async () => {
    const body = (await createAccount(cp, { ...validExample('SOLANA_WALLET'), customerId: cpCustomer, ownershipType: 'FIRST_PARTY' })).json();
    expect(body).toMatchObject({ status: 'PENDING_OWNERSHIP_VERIFICATION', ownershipType: 'FIRST_PARTY' });
  });

  it('a THIRD_PARTY wallet needs a beneficiary, then takes the normal PENDING path', async () => {
    const example = validExample('POLYGON_WALLET');
    const { fields } = errorOf(await createAccount(cp, { ...example, customerId: cpCustomer, ownershipType: 'THIRD_PARTY' }), 400, 'INVALID_INPUT');
    expect(fields).toEqual(['accountInfo.beneficiary']);
    example.accountInfo.beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Grace Hopper', countryOfResidence: 'DE' };
    const body = (await createAccount(cp, { ...example, customerId: cpCustomer, ownershipType: 'THIRD_PARTY' })).json();
    expect(body.status).toBe('PENDING');
  });

  it('a wallet beneficiary is validated (individuals need countryOfResidence)', async () => {
    const example = validExample('TRON_WALLET');
    example.accountInfo.beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Grace Hopper' };
    const { fields } = errorOf(await createAccount(cp, { ...example, customerId: cpCustomer, ownershipType: 'THIRD_PARTY' }), 400, 'INVALID_INPUT');
    expect(fields).toEqual(['accountInfo.beneficiary.countryOfResidence']);
  });

  it('elsewhere wallets need no ownershipType and start PENDING', async () => {
    const body = (await createAccount(p, { ...validExample('PLASMA_WALLET'), customerId: await aCustomer(env, p) })).json();
    expect(body.status).toBe('PENDING');
  });
});

