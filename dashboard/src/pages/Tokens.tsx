import { useState, type FormEvent } from 'react';
import { Empty, ErrorBox, Loading, Pager, Section, Time, usePaged } from '../components';
import { useApp } from '../context';
import type { Permission, TokenInfo } from '../session';

interface ApiToken extends TokenInfo {
  createdAt: string;
  clientSecret?: string;
}

const PERMISSIONS: Permission[] = ['VIEW', 'TRANSACT', 'MANAGE'];

/** API tokens of the platform (MANAGE): give each person or system its own, rotate, revoke. */
export function Tokens() {
  const { api, token: current } = useApp();
  const list = usePaged<ApiToken>('/tokens', {});
  const [name, setName] = useState('');
  const [perms, setPerms] = useState<Permission[]>(['VIEW']);
  const [created, setCreated] = useState<ApiToken>();
  const [state, setState] = useState<{ busy?: boolean; error?: unknown }>({});

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setState({ busy: true });
    try {
      setCreated(await api.post<ApiToken>('/tokens', { name: name.trim(), permissions: perms }));
      setName('');
      setState({});
      list.reload();
    } catch (error) {
      setState({ error });
    }
  };
  const remove = async (t: ApiToken) => {
    if (!window.confirm(`Delete the token "${t.name}"? Everything using it is refused from now on.`)) return;
    setState({ busy: true });
    try {
      await api.request('DELETE', `/tokens/${encodeURIComponent(t.id)}`);
      setState({});
      list.reload();
    } catch (error) {
      setState({ error });
    }
  };

  return (
    <Section title="API tokens">
      <form className="filters" onSubmit={create} aria-label="Create an API token">
        <label className="field grow">
          <span>Name</span>
          <input name="tokenName" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} />
        </label>
        <fieldset className="perm-choice">
          <legend>Permissions</legend>
          {PERMISSIONS.map((p) => (
            <label key={p}>
              <input type="checkbox" checked={perms.includes(p)} onChange={(e) => setPerms((cur) => (e.target.checked ? [...cur, p] : cur.filter((x) => x !== p)))} /> {p}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={state.busy || perms.length === 0}>
          Create token
        </button>
      </form>
      {created?.clientSecret && (
        <div className="notice" role="status" data-testid="new-token">
          <p>
            <strong>{created.name}</strong> was created. Copy the secret now: it is shown only once.
          </p>
          <p>
            Client id <code className="mono">{created.clientId}</code>
            <br />
            Client secret <code className="mono">{created.clientSecret}</code>
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            I stored it — hide
          </button>
        </div>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : list.loading && !list.data ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty>No tokens.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="tokens">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Client id</th>
                  <th scope="col">Permissions</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((t) => (
                  <tr key={t.id} data-id={t.id}>
                    <td>
                      {t.name}
                      {t.id === current.id && <span className="muted"> (this session)</span>}
                    </td>
                    <td className="mono">{t.clientId}</td>
                    <td>{t.permissions.join(', ')}</td>
                    <td>
                      <Time iso={t.createdAt} />
                    </td>
                    <td>
                      <button type="button" onClick={() => remove(t)} disabled={state.busy} aria-label={`Delete ${t.name}`}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </>
      )}
    </Section>
  );
}
