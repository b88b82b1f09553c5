import { errorMessage } from './errors.ts';

export function PageLoading() {
  return (
    <div className="state-block" aria-busy="true" role="status">
      Loading…
    </div>
  );
}

/** A failed load, said plainly, with a way to try again. */
export function ErrorState({
  error,
  onRetry,
  title = 'Could not load this page',
}: {
  error: unknown;
  onRetry: () => void;
  title?: string;
}) {
  return (
    <div className="state-block" role="alert">
      <strong>{title}</strong>
      <p>{errorMessage(error)}</p>
      <button type="button" className="button" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

export function SkeletonRows({ rows = 3 }: { rows?: number }) {
  return (
    <div aria-hidden="true">
      {Array.from({ length: rows }, (_, i) => (
        <div className="skeleton-row" key={i}>
          <span className="skeleton" style={{ width: '5rem' }} />
          <span className="skeleton" style={{ width: '14rem' }} />
          <span className="skeleton" style={{ width: '3rem' }} />
          <span className="skeleton" style={{ width: '8rem' }} />
        </div>
      ))}
    </div>
  );
}
