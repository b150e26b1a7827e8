import { isValidBolt11, isValidEvmAddress, isValidSolanaAddress, isValidSparkAddress, isValidTronAddress } from '../external-accounts/index.js';

/** REF's cryptoNetwork values for a withdrawal, with the assets each carries here (the wallet types' currencies) and its address check. */
export const WITHDRAWAL_NETWORKS: Record<string, { currencies: readonly string[]; address: (a: string) => boolean; describe: string }> = {
  SOLANA: { currencies: ['USDC'], address: isValidSolanaAddress, describe: 'a Solana address (base58 of a 32-byte key)' },
  ETHEREUM: { currencies: ['USDC', 'USDT'], address: isValidEvmAddress, describe: 'an EVM address (0x + 40 hex, EIP-55 when mixed case)' },
  BASE: { currencies: ['USDC'], address: isValidEvmAddress, describe: 'an EVM address (0x + 40 hex, EIP-55 when mixed case)' },
  POLYGON: { currencies: ['USDC'], address: isValidEvmAddress, describe: 'an EVM address (0x + 40 hex, EIP-55 when mixed case)' },
  PLASMA: { currencies: ['USDT'], address: isValidEvmAddress, describe: 'an EVM address (0x + 40 hex, EIP-55 when mixed case)' },
  TRON: { currencies: ['USDT'], address: isValidTronAddress, describe: 'a Tron address (base58check, 0x41 prefix)' },
  SPARK: { currencies: ['BTC', 'USDB'], address: isValidSparkAddress, describe: 'a Spark address (bech32m)' },
  LIGHTNING: { currencies: ['BTC'], address: (a) => isValidBolt11(a) || /^[a-z0-9._+-]+@[a-z0-9.-]+\.[a-z]{2,}$/i.test(a), describe: 'a BOLT11 invoice or a Lightning address' },
  BITCOIN: { currencies: ['BTC'], address: (a) => /^(bc1|tb1|bcrt1)[02-9ac-hj-np-z]{11,87}$/.test(a) || /^[123mn][1-9A-HJ-NP-Za-km-z]{25,34}$/.test(a), describe: 'a Bitcoin address' },
};

/** REF EstimateCryptoWithdrawalFeeResponse. */
export interface WithdrawalFeeEstimate {
  networkFee: bigint;
  networkFeeAsset: string;
  applicationFee: bigint;
  totalFee: bigint;
  netAmount: bigint;
}
