import { useState } from 'react';
import type { FormEvent } from 'react';
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
      <LibrarySearch />
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

/** `documents.search`: the caller's readable documents ranked by meaning. */
function LibrarySearch() {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const results = useQuery({ ...trpc.documents.search.queryOptions({ query }), enabled: query !== '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(draft.trim());
  };
  return (
    <section className="box library-search" aria-labelledby="library-search-label">
      <form role="search" onSubmit={submit}>
        <label id="library-search-label" htmlFor="library-search-input">
          Search your library
        </label>{' '}
        <input
          id="library-search-input"
          type="search"
          value={draft}
          maxLength={1000}
          onChange={(e) => setDraft(e.target.value)}
        />{' '}
        <button type="submit">Search</button>
      </form>
      {query === '' ? null : results.isPending ? (
        <p className="small muted" aria-live="polite">
          Searching…
        </p>
      ) : results.isError ? (
        <ErrorState error={results.error} onRetry={() => void results.refetch()} title="Search failed" />
      ) : results.data.length === 0 ? (
        <p className="small muted" aria-live="polite">
          No documents match “{query}”.
        </p>
      ) : (
        <ol className="doc-list" aria-label="Search results">
          {results.data.map((hit) => (
            <li key={hit.id}>
              <div className="doc-main">
                <Link to={`/documents/${encodeURIComponent(hit.id)}`}>{hit.title}</Link>
                {hit.snippet ? <p className="small muted">{hit.snippet}</p> : null}
              </div>
              <span className={`access ${hit.access}`}>
                <span className="visually-hidden">Access: </span>
                {ACCESS_LABEL[hit.access]} · {hit.score.toFixed(2)}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
