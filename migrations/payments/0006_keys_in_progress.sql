-- The stuck-request recovery job's look-up: keys still IN_PROGRESS whose claim is older than
-- 60 s. Without this index it read every key ever claimed, once for every claim.
CREATE INDEX idempotency_keys_by_status ON idempotency_keys (status, updated_ms);
