import { useState, type FormEvent } from 'react';
import { Empty, ErrorBox, Loading, Pager, Section, Status, Time, useLoad, usePaged } from '../components';
import { useApp } from '../context';
import { href, navigate } from '../router';
import { DELIVERY_STATUSES, type WebhookEvent } from '../types';

export function Webhooks({ query }: { query: URLSearchParams }) {
  const { api, config } = useApp();
  const type = query.get('type') ?? '';
  const deliveryStatus = query.get('deliveryStatus') ?? '';
  const focus = query.get('event') ?? '';
  const [typeDraft, setTypeDraft] = useState(type);
  const list = usePaged<WebhookEvent>('/webhook-events', { type: type || undefined, deliveryStatus: deliveryStatus || undefined });
  const focused = useLoad(async () => (focus ? api.get<WebhookEvent>(`/webhook-events/${encodeURIComponent(focus)}`) : undefined), [api, focus]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate('/webhooks', { type: typeDraft.trim() || undefined, deliveryStatus: deliveryStatus || undefined });
  };

  return (
    <>
      <h1>Webhooks</h1>
      <Section title="Endpoint">
        <p>
          {config.webhookEndpoint ? <code className="mono">{config.webhookEndpoint}</code> : <span className="muted">No endpoint configured — events wait as UNDELIVERABLE until one is set.</span>}{' '}
          <a href={href('/configuration')}>Change</a>
        </p>
        <details>
          <summary>Public key for verifying signatures (X-Svc-Signature)</summary>
          <pre className="mono pem">{config.webhookPublicKey}</pre>
        </details>
      </Section>
      {focus && (
        <Section title="Event" actions={<a href={href('/webhooks', { type: type || undefined, deliveryStatus: deliveryStatus || undefined })}>Close</a>}>
          {focused.error ? <ErrorBox error={focused.error} retry={focused.reload} /> : !focused.data ? <Loading /> : <EventDetails event={focused.data} onChange={focused.reload} />}
        </Section>
      )}
      <form className="filters" onSubmit={submit} aria-label="Webhook filters">
        <label className="field grow">
          <span>Event type</span>
          <input name="type" placeholder="OUTGOING_PAYMENT.COMPLETED" value={typeDraft} onChange={(e) => setTypeDraft(e.target.value)} spellCheck={false} />
        </label>
        <label className="field">
          <span>Delivery</span>
          <select name="deliveryStatus" value={deliveryStatus} onChange={(e) => navigate('/webhooks', { type: type || undefined, deliveryStatus: e.target.value || undefined })}>
            <option value="">Any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : list.loading && !list.data ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty>No webhook events{type || deliveryStatus ? ' match these filters' : ' yet'}.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="webhook-events">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last HTTP status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((e) => {
                  const last = e.attempts[e.attempts.length - 1];
                  return (
                    <tr key={e.id} data-id={e.id}>
                      <td>
                        <a href={href('/webhooks', { type: type || undefined, deliveryStatus: deliveryStatus || undefined, event: e.id })}>{e.type}</a>
                      </td>
                      <td>
                        <Status value={e.deliveryStatus} />
                      </td>
                      <td>{e.attemptCount}</td>
                      <td>{last?.httpStatus ?? <span className="muted">{last ? last.outcome : '—'}</span>}</td>
                      <td>
                        <Time iso={e.timestamp} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </>
      )}
    </>
  );
}

function EventDetails({ event, onChange }: { event: WebhookEvent; onChange: () => void }) {
  const { api, can } = useApp();
  const [state, setState] = useState<{ busy?: boolean; error?: unknown; done?: boolean }>({});
  const redeliver = async () => {
    setState({ busy: true });
    try {
      await api.post(`/webhook-events/${encodeURIComponent(event.id)}/redeliver`);
      setState({ done: true });
      onChange();
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <div data-testid="event-details" data-event-id={event.id}>
      <p>
        <strong>{event.type}</strong> <Status value={event.deliveryStatus} /> <span className="mono small">{event.id}</span>
      </p>
      <p className="muted">
        Created <Time iso={event.timestamp} />
        {event.nextAttemptAt && (
          <>
            {' '}
            · next attempt <Time iso={event.nextAttemptAt} />
          </>
        )}
      </p>
      {can('TRANSACT') && (
        <p>
          <button type="button" onClick={redeliver} disabled={state.busy}>
            Redeliver
          </button>
          {state.done && (
            <span className="ok-text" role="status">
              {' '}
              Queued for delivery. <button type="button" className="link" onClick={onChange}>Refresh</button>
            </span>
          )}
        </p>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
      {event.attempts.length === 0 ? (
        <Empty>No delivery attempts yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table data-testid="attempts">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">URL</th>
                <th scope="col">HTTP status</th>
                <th scope="col" className="num">Latency</th>
                <th scope="col">Outcome</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {event.attempts.map((a, i) => (
                <tr key={i}>
                  <td>
                    <Time iso={a.attemptedAt} />
                  </td>
                  <td className="mono small">{a.url}</td>
                  <td>{a.httpStatus ?? '—'}</td>
                  <td className="num">{a.latencyMs} ms</td>
                  <td>
                    <Status value={a.outcome} />
                  </td>
                  <td>{a.error ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <details>
        <summary>Payload</summary>
        <pre className="mono payload">{JSON.stringify(event.data, null, 2)}</pre>
      </details>
    </div>
  );
}
