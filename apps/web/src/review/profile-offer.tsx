import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { errorMessage } from '../shared/errors.ts';
import { profilesPath } from '../shared/paths.ts';
import { BusyButton } from '../shared/states.tsx';
import { queryClient, trpc } from '../trpc.ts';
import { fittingProfile, kindInSentence, kindsInWords } from './words.ts';

/**
 * Which profile fits the note, when it is not installed on the document: what it describes, and
 * installing it on the reviewer's word, after which the same dialog goes on with its kinds.
 * `alone` when no profile is installed at all (the form cannot start without one).
 */
export function ProfileOffer({
  documentId,
  noteKind,
  installed,
  alone,
}: {
  documentId: string;
  noteKind: string;
  installed: readonly string[];
  alone: boolean;
}) {
  const catalogue = useQuery({ ...trpc.profiles.list.queryOptions({ documentId }), staleTime: 60_000 });
  const install = useMutation(
    trpc.profiles.install.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.profiles.pathKey() }),
    }),
  );
  if (catalogue.isPending) return alone ? <p className="muted">Loading profiles…</p> : null;
  if (catalogue.isError)
    return alone ? <p className="notice error">{errorMessage(catalogue.error)}</p> : null;
  const fit = fittingProfile(catalogue.data, noteKind);
  if (!fit || installed.includes(fit.name)) return null;
  const example = fit.kinds.includes('finding') ? 'finding' : (fit.kinds[0] ?? 'record');
  return (
    <div
      className={`profile-offer${alone ? ' alone' : ''}`}
      role="group"
      aria-label={`The ${fit.title} profile`}
    >
      <p>
        {alone ? (
          <>
            A reviewed record is {kindInSentence(example)} or another kind a profile describes; none is
            installed on this document yet. <strong>{fit.title}</strong> fits this note: it describes{' '}
            {kindsInWords(fit.kinds)}.
          </>
        ) : (
          <>
            {sentence(kindsInWords(fit.kinds))} are described by the <strong>{fit.title}</strong> profile, not
            installed on this document.
          </>
        )}
      </p>
      <div className="offer-actions">
        <BusyButton
          busy={install.isPending}
          type="button"
          className={`button${alone ? ' primary' : ' small-button'}`}
          onClick={() => install.mutate({ documentId, name: fit.name })}
        >
          {install.isPending
            ? `Installing ${fit.title}…`
            : `Install ${fit.title}${alone ? ' and go on' : ''}`}
        </BusyButton>
        {alone && (
          <Link className="small" to={profilesPath(documentId)}>
            All profiles
          </Link>
        )}
      </div>
      {install.isError && (
        <p className="notice error" role="alert">
          {fit.title} was not installed: {errorMessage(install.error)}
        </p>
      )}
    </div>
  );
}

function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
