import { Link } from 'react-router';
import { useTitle } from './use-title.ts';

/**
 * The one not-found page: for an unknown address, a document that does not exist, and a
 * document or memory the signed-in user may not see (the API answers NOT_FOUND alike).
 */
export function NotFoundPage() {
  useTitle('Not found');
  return (
    <div className="state-block">
      <h1>Not found</h1>
      <p>There is nothing here, or it is not yours to see.</p>
      <p>
        <Link to="/">Back to the library</Link>
      </p>
    </div>
  );
}
