import { useMutation, useQuery } from '@tanstack/react-query';
import { useParams, useSearchParams } from 'react-router';
import { Breadcrumb } from '../shared/breadcrumb.tsx';
import { errorMessage, isNotFound } from '../shared/errors.ts';
import { NotFoundPage } from '../shared/not-found-page.tsx';
import { documentPath } from '../shared/paths.ts';
import { ActionError, BusyButton, ErrorState, NotLoaded, SkeletonRows } from '../shared/states.tsx';
import { formatWhen } from '../shared/time.ts';
import { useTitle } from '../shared/use-title.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';

type Summary = RouterOutputs['profiles']['list'][number];
type Preview = RouterOutputs['profiles']['preview'];

/**
 * Vocabulary profiles of one document (`/documents/:id/profiles?pack=<name>`): the shipped packs
 * with what is installed here, a preview of one (kinds, fields with their value codecs, an example
 * record), and installing it. Only the owner gets here; anyone else sees the not-found page.
 */
export default function ProfilesPage() {
  const { id: documentId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const packs = useQuery(trpc.profiles.list.queryOptions({ documentId }));
  const doc = useQuery({ ...trpc.documents.get.queryOptions({ documentId }), enabled: packs.isSuccess });
  const chosen = params.get('pack');
  useTitle('Profiles', doc.data?.title);

  if (packs.isError && isNotFound(packs.error)) return <NotFoundPage />;

  const breadcrumb = (
    <Breadcrumb
      trail={[
        { label: 'Library', to: '/' },
        { label: doc.data?.title ?? 'Document', to: documentPath(documentId) },
      ]}
      current="Profiles"
    />
  );

  return (
    <>
      {breadcrumb}
      <div className="page-head">
        <h1>Profiles</h1>
      </div>
      <p className="muted intro">
        A vocabulary profile names the kinds of reviewed knowledge this document can hold, their fields and
        how each value is written. Reviewed records are validated by a profile installed here.
      </p>
      {!packs.isSuccess ? (
        <NotLoaded query={packs} what="the profiles" rows={3} className="box" />
      ) : (
        <div className="profiles-layout">
          <ul className="pack-list" aria-label="Profiles">
            {packs.data.map((p) => (
              <li key={p.name} className={p.name === chosen ? 'current' : undefined}>
                <h2>
                  {p.title} <span className="muted small">{p.version}</span>
                </h2>
                <p className="small">{p.description}</p>
                <p className="small muted">Kinds: {p.kinds.join(', ')}</p>
                <InstalledLine pack={p} />
                <button
                  type="button"
                  className="button"
                  aria-pressed={p.name === chosen}
                  onClick={() => setParams({ pack: p.name })}
                >
                  Preview {p.title}
                </button>
              </li>
            ))}
          </ul>
          {chosen ? (
            <PreviewPanel
              key={chosen}
              name={chosen}
              documentId={documentId}
              summary={packs.data.find((p) => p.name === chosen)}
            />
          ) : (
            <div className="state-block box">
              <strong>Choose a profile to preview</strong>
              <p>
                The preview lists its kinds, every field with how its value is written, and an example record.
              </p>
            </div>
          )}
        </div>
      )}
    </>
  );
}

function InstalledLine({ pack }: { pack: Summary }) {
  if (!pack.installed) return <p className="small faint">Not installed on this document</p>;
  return (
    <p className="small installed">
      <span aria-hidden="true">✓ </span>Installed {pack.installed.version}
      <span className="muted" title={pack.installed.installedAt}>
        {' '}
        · {formatWhen(pack.installed.installedAt)}
      </span>
      {!pack.installed.current && <span className="warn-text"> · version {pack.version} ships now</span>}
    </p>
  );
}

function PreviewPanel({
  name,
  documentId,
  summary,
}: {
  name: string;
  documentId: string;
  summary: Summary | undefined;
}) {
  const preview = useQuery(trpc.profiles.preview.queryOptions({ name }));
  const install = useMutation(
    trpc.profiles.install.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.profiles.pathKey() });
      },
    }),
  );
  if (preview.isPending) {
    return (
      <section className="box pack-preview" aria-busy="true" aria-label="Preview">
        <span className="visually-hidden">Loading the preview…</span>
        <SkeletonRows rows={4} />
      </section>
    );
  }
  if (preview.isError) {
    if (isNotFound(preview.error)) {
      return (
        <section className="state-block box" aria-label="Preview">
          <strong>No such profile</strong>
          <p>{errorMessage(preview.error)}</p>
        </section>
      );
    }
    return (
      <ErrorState
        error={preview.error}
        onRetry={() => void preview.refetch()}
        title="Could not load the preview"
      />
    );
  }
  const p = preview.data;
  const installed = summary?.installed ?? null;
  const upToDate = installed?.current === true;
  const titleId = `preview-${p.name}`;
  return (
    <section className="box pack-preview" aria-labelledby={titleId}>
      <div className="preview-head">
        <h2 id={titleId}>
          Preview: {p.title} {p.version}
        </h2>
        <div className="preview-install">
          {upToDate ? (
            <p className="installed" role="status">
              <span aria-hidden="true">✓ </span>Installed on this document
            </p>
          ) : (
            <BusyButton
              busy={install.isPending}
              type="button"
              className="button primary"
              onClick={() => install.mutate({ documentId, name: p.name })}
            >
              {installed ? `Install ${p.version} on this document` : 'Install on this document'}
            </BusyButton>
          )}
        </div>
      </div>
      <ActionError error={install.error} />
      <p>{p.description}</p>
      <p className="small muted">
        Digest{' '}
        <span className="mono" title={p.digest}>
          {p.digest.slice(0, 12)}…
        </span>
      </p>
      {p.kinds.map((k) => (
        <KindPreview key={k.name} kind={k} />
      ))}
      <h3>Example record ({p.example.kind})</h3>
      <pre className="example-record">{JSON.stringify(p.example, null, 2)}</pre>
    </section>
  );
}

function KindPreview({ kind }: { kind: Preview['kinds'][number] }) {
  return (
    <section className="kind-preview" aria-label={`Kind ${kind.name}`}>
      <h3>
        <span className="mono">{kind.name}</span>
      </h3>
      <p className="small">{kind.description}</p>
      <table className="fields-table">
        <caption className="visually-hidden">Fields of {kind.name}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Required</th>
            <th scope="col">Value</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {kind.fields.map((f) => (
            <tr key={f.name}>
              <th scope="row" className="mono">
                {f.name}
              </th>
              <td>{f.required ? 'required' : 'optional'}</td>
              <td>{f.codec.summary}</td>
              <td>{f.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {kind.relations.length > 0 && (
        <p className="small muted">
          Relations:{' '}
          {kind.relations.map((r, i) => (
            <span key={r.name}>
              {i > 0 && '; '}
              <span className="mono">{r.name}</span> → {r.to.join(', ')} (via {r.field})
            </span>
          ))}
        </p>
      )}
    </section>
  );
}
