import { describe, expect, it } from 'vitest';
import { heldReasonText, instructionLines, railsOf } from '../src/payins';

describe('pay-in coordinates as a payer reads them', () => {
  it('lists the fields a payer copies, labelled and in a payer\'s order; internal fields are left out', () => {
    const lines = instructionLines({
      isPlatformAccount: false,
      accountOrWalletInfo: { accountType: 'USD_ACCOUNT', accountNumber: '880123456789', routingNumber: '026009593', bankName: 'Sandbox Collection Bank', paymentRails: ['WIRE'], reference: '880123456789', bankAccountType: 'CHECKING' },
    });
    expect(lines).toEqual([
      { label: 'Bank', value: 'Sandbox Collection Bank' },
      { label: 'Routing number', value: '026009593' },
      { label: 'Account number', value: '880123456789' },
    ]);
    const swift = instructionLines({ accountOrWalletInfo: { accountType: 'SWIFT_ACCOUNT', swiftCode: 'SBXCUS33', accountNumber: '88012', accountHolderName: 'Ada Lovelace', country: 'US', intermediary: 'X BANK' } });
    expect(swift.map((l) => l.label)).toEqual(['Beneficiary name', 'Account number', 'SWIFT/BIC', 'Country', 'intermediary']);
  });

  it('names the rail from paymentRails, else from the wallet type', () => {
    expect(railsOf({ accountOrWalletInfo: { accountType: 'MXN_ACCOUNT', paymentRails: ['SPEI'] } })).toBe('SPEI');
    expect(railsOf({ accountOrWalletInfo: { accountType: 'SOLANA_WALLET', address: 'x' } })).toBe('SOLANA');
  });

  it('explains every held reason the API gives, and shows an unknown one as is', () => {
    for (const r of ['ACCOUNT_FROZEN', 'ACCOUNT_CLOSED', 'ACCOUNT_NOT_ACTIVE', 'CURRENCY_MISMATCH', 'UNMATCHED']) expect(heldReasonText(r)).not.toBe(r);
    expect(heldReasonText('SOMETHING_NEW')).toBe('SOMETHING_NEW');
  });
});
