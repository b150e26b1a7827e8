-- Issue 12: an event of a platform with no webhook endpoint is recorded UNDELIVERABLE
-- (WEBHOOK_ENDPOINT_NOT_SET) as it is inserted — what the outbox relay would decide a moment later —
-- so the relay never locks, updates and re-indexes it (a payment records four or five events). The
-- platform row is read in the inserting transaction: a PATCH /config that sets the endpoint in the
-- same transaction (its TEST event) or before it counts. A redelivery (POST /webhook-events/{id}/redeliver)
-- sends such an event once an endpoint is set, as before. Rows inserted already relayed are left alone.
CREATE OR REPLACE FUNCTION svc_webhook_event_born() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.relayed_at IS NULL AND NEW.delivery_status = 'PENDING'
     AND NOT EXISTS (SELECT 1 FROM platforms p WHERE p.id = NEW.platform_id AND p.webhook_endpoint IS NOT NULL) THEN
    NEW.delivery_status := 'UNDELIVERABLE';
    NEW.relayed_at := NEW.created_at;
    NEW.retry_window_started_at := NEW.created_at;
    NEW.next_attempt_at := NULL;
    NEW.last_error := 'WEBHOOK_ENDPOINT_NOT_SET';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER webhook_events_born BEFORE INSERT ON webhook_events
  FOR EACH ROW EXECUTE FUNCTION svc_webhook_event_born();
