-- Issue 26 (26c): the owed-work sweep of agent TRANSFER_IN actions approved whose pull never ran (the process
-- died between the approval's commit and the pull). Reads only such rows; a finished pull leaves the index.
CREATE INDEX "agent_actions_pull_owed_idx" ON "agent_actions"("updated_at") WHERE "type" = 'TRANSFER_IN' AND "status" = 'APPROVED' AND "transaction_id" IS NULL;
