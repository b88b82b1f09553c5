import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '../shared/errors.ts';
import { queryClient, trpc } from '../trpc.ts';
import { inProgress, indexLabel } from './row-words.ts';
import type { RowIndex } from './row-words.ts';

/**
 * A document's way to search, for its owner: "extracting the text, page 3 of 12" while its upload
 * is read, "recognizing text, page 3 of 12" while OCR reads its scanned pages, "indexing… 40%", or
 * "failed: <reason>" with Try again (`documents.reindex`);
 * once ready, only what OCR left out, if anything. The lists that show it poll until it is ready.
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
  if (!index) return null;
  if (!label) {
    return index.note ? <span className="index-state note">{index.note}</span> : null;
  }
  if (inProgress(index)) {
    return (
      <span className="index-state indexing" role="status">
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
