import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '../lib/errors.ts';
import { indexLabel } from '../lib/library.ts';
import type { RowIndex } from '../lib/library.ts';
import { queryClient, trpc } from '../trpc.ts';

/**
 * A document's search index, for its owner: "indexing… 40%", or "failed: <reason>" with Try
 * again (`documents.reindex`); nothing once ready. The lists that show it poll while indexing.
 */
export function IndexState({
  documentId,
  index,
  describedBy,
}: {
  documentId: string;
  index: RowIndex | null;
  /** The id of the document's title, for a list of many Try again buttons. */
  describedBy?: string;
}) {
  const reindex = useMutation(
    trpc.documents.reindex.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() }),
    }),
  );
  const label = indexLabel(index);
  if (!label || !index) return null;
  if (index.state === 'indexing') {
    return (
      <span className="index-state indexing">
        <span className="visually-hidden">Search index: </span>
        {label}
      </span>
    );
  }
  return (
    <span className="index-state failed">
      <span>
        <span className="visually-hidden">Search index: </span>
        {label}
      </span>
      <button
        type="button"
        className="button small-button"
        disabled={reindex.isPending}
        aria-describedby={describedBy}
        onClick={() => reindex.mutate({ documentId })}
      >
        Try again
      </button>
      {reindex.isError && (
        <span className="field-error" role="alert">
          {errorMessage(reindex.error)}
        </span>
      )}
    </span>
  );
}
