// Times read as a researcher says them: "14:02 today", "2 h ago", "21 h 58 m 7 s".
const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });
const fullDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const formatClock = (iso: string): string => clock.format(new Date(iso));

function dayOffset(date: Date, now: Date): number {
  const a = Date.UTC(date.getFullYear(), date.getMonth(), date.getDate());
  const b = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  return Math.round((a - b) / DAY);
}

/** "today", "tomorrow", "yesterday" or "3 Dec". */
export function formatDay(iso: string, now: number = Date.now()): string {
  const date = new Date(iso);
  const offset = dayOffset(date, new Date(now));
  if (offset === 0) return 'today';
  if (offset === 1) return 'tomorrow';
  if (offset === -1) return 'yesterday';
  return dayMonth.format(date);
}

/** "14:02 today" / "14:02 tomorrow" / "14:02, 3 Dec". */
export function formatTimeAndDay(iso: string, now: number = Date.now()): string {
  const day = formatDay(iso, now);
  return /^\d/.test(day) ? `${formatClock(iso)}, ${day}` : `${formatClock(iso)} ${day}`;
}

/** "tomorrow 14:02" / "today 16:00" / "3 Dec 14:02". */
export function formatDayAndTime(iso: string, now: number = Date.now()): string {
  return `${formatDay(iso, now)} ${formatClock(iso)}`;
}

/** "9 Mar 2026": a day that may lie years away (a link's expiry), so with its year. */
export const formatDate = (iso: string): string => fullDate.format(new Date(iso));

/** "12 Sept 2026, 14:00": a moment that may lie years away, so with its year. */
export function formatDateAndClock(iso: string): string {
  return `${formatDate(iso)}, ${formatClock(iso)}`;
}

/** "just now", "5 m ago", "2 h ago", "3 d ago". */
export function formatAgo(iso: string, now: number = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  if (ms < MINUTE) return 'just now';
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} m ago`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h ago`;
  return `${Math.floor(ms / DAY)} d ago`;
}

/** A positive span as "21 h 58 m 7 s", "58 m 7 s" or "7 s". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${m} m ${s} s`;
  if (m > 0) return `${m} m ${s} s`;
  return `${s} s`;
}
