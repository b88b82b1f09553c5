import type { ButtonHTMLAttributes, ReactNode } from 'react';
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

/**
 * A list's query before it has its rows: skeleton rows while it loads ("Loading `what`…" to
 * screen readers), or its failure ("Could not load `what`") with a way to try again.
 */
export function NotLoaded({
  query,
  what,
  rows,
  className,
}: {
  query: { isError: boolean; error: unknown; refetch: () => unknown };
  what: string;
  rows: number;
  className?: string;
}) {
  if (query.isError)
    return (
      <ErrorState error={query.error} onRetry={() => void query.refetch()} title={`Could not load ${what}`} />
    );
  return (
    <div className={className} aria-busy="true">
      <span className="visually-hidden">Loading {what}…</span>
      <SkeletonRows rows={rows} />
    </div>
  );
}

/** Why an action failed, in words, where the action is (and what to do, as `children`); nothing before. */
export function ActionError({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null;
  return (
    <p className="notice error" role="alert">
      {errorMessage(error)}
      {children}
    </p>
  );
}

/** The button of an action: it says it is busy, and cannot be pressed again, while the action runs. */
export function BusyButton({
  busy,
  disabled,
  ...button
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean }) {
  return <button {...button} disabled={busy || disabled} aria-busy={busy || undefined} />;
}
