import { Link } from 'react-router';
import { documentPath } from '../shared/paths.ts';

/** A reviewed record's passage as quoted, and the document it is from: a link while it is there. */
export function CitedPassage({
  passage,
  source,
}: {
  passage: string;
  source: { documentId: string; title: string | null };
}) {
  return (
    <figure className="cited-passage">
      <blockquote>{passage}</blockquote>
      <figcaption className="small muted">
        from{' '}
        {source.title === null ? (
          <span>a document no longer in your library</span>
        ) : (
          <Link to={documentPath(source.documentId)}>{source.title}</Link>
        )}
      </figcaption>
    </figure>
  );
}
