import { formatDayAndTime, formatDuration } from '../shared/time.ts';
import { useNow } from '../shared/use-now.ts';

/**
 * "Forgets in 21 h 58 m 7 s (tomorrow 14:02)", re-rendered every second; past the time it
 * reads "Expired — waiting to be purged" (the purge worker has not come by yet). Not a live
 * region on purpose: a screen reader should not announce every second.
 */
export function ForgetCountdown({ forgetsAt }: { forgetsAt: string }) {
  const now = useNow(1000);
  const left = new Date(forgetsAt).getTime() - now;
  if (left <= 0) return <ExpiredLine forgetsAt={forgetsAt} />;
  return (
    <span className="countdown" title={forgetsAt}>
      Forgets in <time dateTime={forgetsAt}>{formatDuration(left)}</time> ({formatDayAndTime(forgetsAt, now)})
    </span>
  );
}

export function ExpiredLine({ forgetsAt }: { forgetsAt: string }) {
  return (
    <span className="state-line closed" title={forgetsAt}>
      Expired — waiting to be purged
    </span>
  );
}
