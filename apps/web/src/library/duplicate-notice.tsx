import { useQuery } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { Link } from 'react-router';
import { documentPath } from '../shared/paths.ts';
import { trpc } from '../trpc.ts';
import { duplicateWords, OPEN_IT } from './paper-words.ts';

/** The document a call was refused for duplicating (CONFLICT `duplicate`, SPEC §6d), if it was. */
export function duplicateOf(error: unknown): string | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data = error.data as { reason?: unknown; existingId?: unknown } | null | undefined;
  return data?.reason === 'duplicate' && typeof data.existingId === 'string' ? data.existingId : null;
}

/**
 * "Already in your library: Hughes et al. 2017 — open it?", "open it" linking to the document the
 * library has; named from the library's list, else from the API's sentence.
 */
export function DuplicateNotice({ existingId, apiMessage }: { existingId: string; apiMessage: string }) {
  const documents = useQuery(trpc.documents.list.queryOptions());
  const existing = documents.data?.find((d) => d.id === existingId);
  const words = duplicateWords(existing, apiMessage);
  return (
    <span className="duplicate">
      {words.slice(0, words.length - `${OPEN_IT}?`.length)}
      <Link to={documentPath(existingId)}>{OPEN_IT}</Link>?
    </span>
  );
}
