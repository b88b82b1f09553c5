import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorState, SkeletonRows } from '../components/states.tsx';
import { useTitle } from '../lib/use-title.ts';
import { trpc } from '../trpc.ts';

const ACCESS_LABEL = { owner: 'owner', shared: 'shared', public: 'public' } as const;

export default function LibraryPage() {
  useTitle('Library');
  const documents = useQuery(trpc.documents.list.queryOptions());
  return (
    <>
      <div className="page-head">
        <h1>Library</h1>
      </div>
      {documents.isPending ? (
        <div className="box" aria-busy="true">
          <span className="visually-hidden">Loading documents…</span>
          <SkeletonRows rows={4} />
        </div>
      ) : documents.isError ? (
        <ErrorState
          error={documents.error}
          onRetry={() => void documents.refetch()}
          title="Could not load the library"
        />
      ) : documents.data.length === 0 ? (
        <p className="notice">The library is empty.</p>
      ) : (
        <ul className="doc-list" aria-label="Documents">
          {documents.data.map((doc) => (
            <li key={doc.id}>
              <div className="doc-main">
                <Link to={`/documents/${encodeURIComponent(doc.id)}`}>{doc.title}</Link>
                <p className="small muted">
                  {[doc.authors.join(', '), doc.access === 'owner' ? '' : `from ${doc.ownerName}`]
                    .filter(Boolean)
                    .join(' · ')}
                </p>
              </div>
              <span className={`access ${doc.access}`}>
                <span className="visually-hidden">Access: </span>
                {ACCESS_LABEL[doc.access]}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
