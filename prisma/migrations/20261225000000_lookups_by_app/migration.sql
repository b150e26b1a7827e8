-- Issue 29 (29d, docs/decisions.md): tenant_lookups is written by the application, in the transaction that
-- writes the row (syncLookups, src/platform/tenant-lookups.ts), no longer by triggers on the tenant tables.
-- On Citus a trigger runs on the shard that holds the row's platform and may write only that platform's
-- shard group; tenant_lookups is distributed by the value looked up (a lookup before the platform is known
-- is one shard, and a value is unique across platforms), so every svc_tenant_lookup trigger made creating a
-- platform fail there ("cannot execute a distributed query from a query on a shard"). The rows written so far
-- stay: they are what the application now keeps.
DROP TRIGGER "platform_credentials_lookup" ON "platform_credentials";
DROP TRIGGER "kyc_links_lookup" ON "kyc_links";
DROP TRIGGER "agent_device_codes_code_lookup" ON "agent_device_codes";
DROP TRIGGER "agent_device_codes_token_lookup" ON "agent_device_codes";
DROP TRIGGER "uma_invitations_lookup" ON "uma_invitations";
DROP TRIGGER "bank_links_lookup" ON "bank_links";
DROP TRIGGER "sca_factor_resets_lookup" ON "sca_factor_resets";
DROP TRIGGER "cards_lookup" ON "cards";
DROP TRIGGER "stablecoin_operations_lookup" ON "stablecoin_operations";
DROP TRIGGER "collection_coordinates_lookup" ON "collection_coordinates";
DROP TRIGGER "external_account_challenges_lookup" ON "external_account_challenges";
DROP TRIGGER "verifications_lookup" ON "verifications";
DROP TRIGGER "external_accounts_lookup" ON "external_accounts";
DROP FUNCTION svc_tenant_lookup();
DROP FUNCTION svc_tenant_lookup_value(jsonb, text[]);
