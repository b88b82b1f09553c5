import { useState } from 'react';
import type { FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { documentPagePath, documentPath, memoryPanelPath } from '../shared/paths.ts';
import { ErrorState, SkeletonRows } from '../shared/states.tsx';
import { useNow } from '../shared/use-now.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { AddDocumentDialog } from './add-document-dialog.tsx';
import { IndexState } from './index-state.tsx';
import {
  accessLabel,
  activityLabel,
  anyIndexing,
  holdsMemory,
  memoryLabel,
  pageLabel,
  excerpt,
  highlight,
} from './row-words.ts';

type Doc = RouterOutputs['documents']['list'][number];

/** While a document is indexed its row counts up; once none is, the list stops asking. */
const INDEX_POLL_MS = 1000;

/** The library (UI.md): the caller's documents, most recently active first (the API's order). */
export default function LibraryPage() {
  useTitle('Library');
  const documents = useQuery({
    ...trpc.documents.list.queryOptions(),
    refetchInterval: (query) => (anyIndexing(query.state.data) ? INDEX_POLL_MS : false),
  });
  return (
    <>
      <div className="page-head">
        <h1>Library</h1>
        <AddDocumentDialog />
      </div>
      <LibrarySearch documents={documents.data} />
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
        <div className="box state-block">
          <strong>Your library is empty</strong>
          <p>
            Use <em>Add document</em> to upload a PDF, a plain-text or a Markdown file, or to paste a text.
            The agent then works inside it, and you can cite its passages in reviews.
          </p>
        </div>
      ) : (
        <DocumentList docs={documents.data} />
      )}
    </>
  );
}

function DocumentList({ docs }: { docs: Doc[] }) {
  // Minutes are the finest unit in the list; the Memory panel has the ticking countdown.
  const now = useNow(30_000);
  return (
    <ul className="doc-list" aria-label="Documents">
      {docs.map((doc) => {
        const memory = memoryLabel(doc.memory, now);
        // The row's links and buttons say which document they are about through its title.
        const titleId = `doc-title-${doc.id}`;
        return (
          <li key={doc.id} className="doc-row">
            <div className="doc-main">
              <Link to={documentPath(doc.id)} id={titleId}>
                {doc.title}
              </Link>
              {doc.authors.length > 0 && <p className="small muted">{doc.authors.join(', ')}</p>}
            </div>
            <span className={`access ${doc.access}`}>
              <span className="visually-hidden">Access: </span>
              {accessLabel(doc.access, doc.ownerName)}
            </span>
            <span className="small muted activity" title={doc.lastActivityAt}>
              {activityLabel(doc, now)}
            </span>
            <div className="doc-state">
              {memory && doc.memory && (
                <Link
                  className={holdsMemory(doc.memory) ? 'memory-link holds' : 'memory-link'}
                  to={memoryPanelPath(doc.id, doc.memory.sessionId)}
                  aria-describedby={titleId}
                >
                  {memory} <span aria-hidden="true">→</span>
                </Link>
              )}
              {doc.access === 'owner' && (
                <IndexState documentId={doc.id} index={doc.index} describedBy={titleId} />
              )}
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * `documents.search`: the caller's own documents ranked by keywords and meaning, with the passage
 * that matched, its matched terms marked; a hit opens the document at its page.
 */
function LibrarySearch({ documents }: { documents: Doc[] | undefined }) {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const results = useQuery({ ...trpc.documents.search.queryOptions({ query }), enabled: query !== '' });
  const sourceOf = (id: string) => documents?.find((d) => d.id === id)?.source;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(draft.trim());
  };
  return (
    <section className="box library-search" aria-labelledby="library-search-label">
      <form role="search" onSubmit={submit}>
        <label id="library-search-label" htmlFor="library-search-input">
          Search your documents
        </label>{' '}
        <input
          id="library-search-input"
          type="search"
          value={draft}
          maxLength={1000}
          placeholder="Ask a question or name a topic"
          onChange={(e) => setDraft(e.target.value)}
        />{' '}
        <button type="submit" className="button">
          Search
        </button>
      </form>
      {query === '' ? null : results.isPending ? (
        <p className="small muted" aria-live="polite">
          Searching…
        </p>
      ) : results.isError ? (
        <ErrorState error={results.error} onRetry={() => void results.refetch()} title="Search failed" />
      ) : results.data.length === 0 ? (
        <p className="small muted" aria-live="polite">
          None of your documents matches “{query}”. Documents still being indexed are not searched yet.
        </p>
      ) : (
        <ol className="hit-list" aria-label="Search results">
          {results.data.map((hit) => {
            const page = pageLabel(hit.page, sourceOf(hit.id));
            return (
              <li key={`${hit.id}/${hit.chunk}`}>
                <div className="hit-head">
                  <Link
                    to={
                      page && typeof hit.page === 'number'
                        ? documentPagePath(hit.id, hit.page)
                        : documentPath(hit.id)
                    }
                  >
                    {hit.title}
                  </Link>
                  {page && <span className="small muted">{page}</span>}
                  <span
                    className="small faint"
                    title="How well the passage matches, by its words and its meaning together, 0 to 1"
                  >
                    <span className="visually-hidden">Score </span>
                    {hit.score.toFixed(2)}
                  </span>
                </div>
                <p className="small hit-passage">
                  {highlight(excerpt(hit.passage, hit.terms), hit.terms).map((piece, i) =>
                    piece.mark ? <mark key={i}>{piece.text}</mark> : piece.text,
                  )}
                </p>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
