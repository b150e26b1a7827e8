import { parseArgs } from 'node:util';
import { platformOption, runCommand, withOperatorDeps } from './operator.js';
import { platformLabel } from '../platform/ids.js';
import { setDailyVolumeLimit } from '../domains/limits/index.js';

/**
 * npm run daily-volume:limit -- --platform Platform:<uuid> --corridor USD:EUR --limit 5000000   (minor units of the sending currency)
 * npm run daily-volume:limit -- --platform Platform:<uuid> --corridor USD:USD --clear
 * The operator's per-platform, per-corridor daily volume limit (issue 25, REF 429 DAILY_VOLUME_LIMIT_EXCEEDED). A
 * same-currency corridor (USD:USD) limits withdrawals (POST /transfer-out) in that currency.
 */
async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, corridor: { type: 'string' }, limit: { type: 'string' }, clear: { type: 'boolean' } } });
  const [sending, receiving] = (values.corridor ?? '').toUpperCase().split(':');
  if (!sending || !receiving) throw new Error('--corridor must be SENDING:RECEIVING, e.g. USD:EUR');
  if (!values.clear && !/^\d+$/.test(values.limit ?? '')) throw new Error('--limit must be a whole number of minor units (or give --clear)');
  const platform = platformOption(values.platform, true);
  const v = await withOperatorDeps({ bus: true }, (deps) => setDailyVolumeLimit(deps, platform, sending, receiving, values.clear ? null : BigInt(values.limit!)));
  console.log(`${platformLabel(platform)} ${v.sendingCurrency}:${v.receivingCurrency} limit ${v.limit ?? 'none'}, used today ${v.usedToday}`);
}

runCommand(main);
