import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { documentPath, memoryPanelPath } from '../shared/paths.ts';
import { ErrorState, SkeletonRows } from '../shared/states.tsx';
import { useNow } from '../shared/use-now.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { AddDocumentDialog } from './add-document-dialog.tsx';
import { IndexState } from './index-state.tsx';
import { accessLabel, activityLabel, anyIndexing, holdsMemory, memoryLabel } from './row-words.ts';
import { LibrarySearch } from './library-search.tsx';
import { librarySections } from './sections.ts';

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
      ) : (
        <Sections docs={documents.data} />
      )}
    </>
  );
}

/**
 * The owner's own documents, then what others share or publish under their own headings: a new
 * account's library is empty even when someone's published document is there to read.
 */
function Sections({ docs }: { docs: Doc[] }) {
  const { own, others } = librarySections(docs);
  return (
    <>
      {own.length === 0 ? (
        <div className="box state-block">
          <strong>Your library is empty</strong>
          <p>
            Use <em>Add document</em> to upload a PDF, a plain-text or a Markdown file, or to paste a text.
            The agent then works inside it, and you can cite its passages in reviews.
          </p>
        </div>
      ) : (
        <DocumentList docs={own} label="Your documents" />
      )}
      {others.map((section) => (
        <section key={section.heading} className="library-section" aria-label={section.heading}>
          <h2>{section.heading}</h2>
          <DocumentList docs={section.docs} label={`Documents ${section.heading.toLowerCase()}`} />
        </section>
      ))}
    </>
  );
}

function DocumentList({ docs, label }: { docs: Doc[]; label: string }) {
  // Minutes are the finest unit in the list; the Memory panel has the ticking countdown.
  const now = useNow(30_000);
  return (
    <ul className="doc-list" aria-label={label}>
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
