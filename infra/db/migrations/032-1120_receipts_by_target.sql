-- The run page (GET /api/workflow-runs/:id/page, core/workflows/run-page.ts) lists the receipts of
-- the governed actions on one run: those whose target is the run, one of its approvals, or its task
-- (the run.dispatch that created it). Receipts were indexed by time alone, so each page read every
-- receipt ever written.

CREATE INDEX action_receipts_target ON action_receipts (target_id, created_at);
