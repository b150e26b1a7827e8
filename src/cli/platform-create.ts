import { parseArgs } from 'node:util';
import { createPrisma } from '../platform/db.js';
import { withSandboxLocalDefaults } from '../start/defaults.js';
import { platformLabel } from '../platform/ids.js';
import { clientIdExists, createPlatform } from '../domains/platforms/platforms.service.js';

/**
 * npm run platform:create -- --name N [--regulated] [--counterparty-rules] [--sca-region]
 *   [--client-id ID --client-secret S] [--if-missing]
 * Prints the platform id, client id and secret once (decision A3); only the secret's hash is kept.
 */
async function main() {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      regulated: { type: 'boolean', default: false },
      'counterparty-rules': { type: 'boolean', default: false },
      'sca-region': { type: 'boolean', default: false },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'if-missing': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const url = withSandboxLocalDefaults(process.env).DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  if (!values.name) throw new Error('--name is required');
  if (values['client-secret'] && values['client-secret'].length < 12) throw new Error('--client-secret must be at least 12 characters');
  const prisma = createPrisma(url, 2);
  try {
    if (values['if-missing'] && values['client-id'] && (await clientIdExists(prisma, values['client-id']))) {
      console.log(`platform with client id ${values['client-id']} exists; nothing to do`);
      return;
    }
    const created = await createPlatform(prisma, {
      name: values.name,
      isRegulated: values.regulated,
      counterpartyRules: values['counterparty-rules'],
      scaRegion: values['sca-region'],
      ...(values['client-id'] ? { clientId: values['client-id'] } : {}),
      ...(values['client-secret'] ? { clientSecret: values['client-secret'] } : {}),
    });
    if (values.json) console.log(JSON.stringify({ ...created, platformId: platformLabel(created.platformId) }));
    else {
      console.log(`platform id:   ${platformLabel(created.platformId)}`);
      console.log(`client id:     ${created.clientId}`);
      console.log(`client secret: ${created.clientSecret}   (shown once; store it now)`);
    }
  } finally {
    await prisma.$disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
