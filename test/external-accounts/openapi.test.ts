import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_TYPES } from '../../src/domains/external-accounts/account-types.js';
import { render } from '../../scripts/openapi-account-info.js';
import { loadOpenApi, validateAgainstComponent } from '../helpers/openapi.js';
import { validExample } from '../unit/external-accounts/fixtures.js';

/** openapi.yaml's accountInfo union is generated from the validator: it must stay what the generator prints. */
describe('openapi.yaml accountInfo', () => {
  it('is the generator\'s current output (run `npx tsx scripts/openapi-account-info.ts --write` after changing a field rule)', () => {
    expect(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')).toContain(render());
  });

  it('is a discriminated union over accountType mapping every spec type', () => {
    const info = loadOpenApi().components.schemas.AccountInfo;
    expect(info.discriminator.propertyName).toBe('accountType');
    expect(Object.keys(info.discriminator.mapping).sort()).toEqual([...ACCOUNT_TYPES].sort());
  });

  it.each(ACCOUNT_TYPES)('accepts the valid %s example and refuses it under another type', (type) => {
    const { accountInfo } = validExample(type);
    expect(validateAgainstComponent('AccountInfo', accountInfo)).toEqual([]);
    const other = type === 'USD_ACCOUNT' ? 'EUR_ACCOUNT' : 'USD_ACCOUNT';
    expect(validateAgainstComponent('AccountInfo', { ...accountInfo, accountType: other })).not.toEqual([]);
  });
});
