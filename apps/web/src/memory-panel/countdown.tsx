import { useNow } from '../shared/use-now.ts';
import { forgetsInWords } from './panel-words.ts';

/**
 * "Forgets in 21 h 58 m 7 s (14:02 tomorrow)", re-rendered every second; past the time it reads
 * "Expired — waiting to be purged" (the purge worker has not come by yet). Not a live region on
 * purpose: a screen reader should not announce every second.
 */
export function ForgetCountdown({ forgetsAt }: { forgetsAt: string }) {
  const now = useNow(1000);
  const expired = new Date(forgetsAt).getTime() <= now;
  return (
    <span className={expired ? 'state-line closed' : 'countdown'} title={forgetsAt}>
      {forgetsInWords(forgetsAt, now)}
    </span>
  );
}
