import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { errorMessage } from '../shared/errors.ts';
import { documentPath } from '../shared/paths.ts';
import { useTitle } from '../shared/use-title.ts';
import { BusyButton } from '../shared/states.tsx';
import { queryClient, trpc } from '../trpc.ts';

/**
 * An invitation link (`/invite/<token>`, SPEC §6c): the owner of a document sent it to someone
 * through a channel of their own. Signed in (the route asks first), the person accepts it with a
 * button rather than on arrival: the page says which account will read the document, so whoever is
 * signed in with another account can switch before the one use is spent.
 */
export default function InvitePage() {
  useTitle('An invitation to read a document');
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const me = useQuery(trpc.auth.me.queryOptions());
  const accept = useMutation(
    trpc.documents.acceptInvite.mutationOptions({
      onSuccess: async ({ documentId }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
        await navigate(documentPath(documentId), { replace: true });
      },
    }),
  );

  if (accept.isError) {
    return (
      <div className="signin box">
        <h1>This invitation link cannot be used</h1>
        <p className="notice error" role="alert">
          {errorMessage(accept.error)}
        </p>
        <p>
          <Link to="/">Go to the library</Link>
        </p>
      </div>
    );
  }
  const account = me.data ? `${me.data.name}${me.data.email ? ` (${me.data.email})` : ''}` : 'your account';
  return (
    <div className="signin box">
      <h1>An invitation to read a document</h1>
      <p>
        Someone shared a document with you and sent you this link. Accept it to read the document as{' '}
        <strong>{account}</strong>; the link then stops working for anyone else.
      </p>
      <p className="small muted">
        Not the account you meant? Sign out from the account menu, sign in with the other one, then open the
        link again.
      </p>
      <BusyButton
        busy={accept.isPending}
        type="button"
        className="button primary"
        onClick={() => accept.mutate({ token })}
      >
        Accept and open the document
      </BusyButton>
    </div>
  );
}
