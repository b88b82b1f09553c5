// Times read one way everywhere, in the reader's own locale (UI.md "Words and states the panel
// uses"): a moment is "14:02 today", "14:02 yesterday", "14:02 tomorrow", else "6 Dec 2026, 14:02";
// how long ago is "just now", "5 min ago", "2 h ago", "yesterday", "4 days ago", "on 3 Dec 2026";
// a span left is "21 h 58 m 7 s". An en-US reader reads "2:02 PM today" and "Dec 6, 2026, 2:02 PM".

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Formats {
  clock: Intl.DateTimeFormat;
  date: Intl.DateTimeFormat;
  dateAndClock: Intl.DateTimeFormat;
  /** A calendar date as written in a record (no time of day, so no time zone): UTC. */
  day: Intl.DateTimeFormat;
  month: Intl.DateTimeFormat;
}

const formats = new Map<string, Formats>();

/**
 * The reader's locales as their browser states them; read on every call, not once at load, so a
 * test can state a reader's (Node's own default otherwise, as on a server).
 */
function readerFormats(): Formats {
  const locales = typeof navigator === 'undefined' ? [] : (navigator.languages ?? []);
  const key = locales.join(',');
  let found = formats.get(key);
  if (!found) {
    const locale = locales.length > 0 ? [...locales] : undefined;
    found = {
      clock: new Intl.DateTimeFormat(locale, { timeStyle: 'short' }),
      date: new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }),
      dateAndClock: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
      day: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }),
      month: new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' }),
    };
    formats.set(key, found);
  }
  return found;
}

/** Whole calendar days from `now` to `date`, in the reader's time zone. */
function dayOffset(date: Date, now: Date): number {
  const a = Date.UTC(date.getFullYear(), date.getMonth(), date.getDate());
  const b = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  return Math.round((a - b) / DAY);
}

const NEAR_DAYS: Readonly<Record<number, string>> = { [-1]: 'yesterday', 0: 'today', 1: 'tomorrow' };

/** "14:02 today", "14:02 yesterday", "14:02 tomorrow", else "6 Dec 2026, 14:02": the one style of a moment. */
export function formatWhen(iso: string, now: number = Date.now()): string {
  const date = new Date(iso);
  const { clock, dateAndClock } = readerFormats();
  const near = NEAR_DAYS[dayOffset(date, new Date(now))];
  return near === undefined ? dateAndClock.format(date) : `${clock.format(date)} ${near}`;
}

/** "at 14:02 today" or "on 6 Dec 2026, 14:02": a moment after a verb ("Forgotten at …"). */
export function formatAtWhen(iso: string, now: number = Date.now()): string {
  const when = formatWhen(iso, now);
  return NEAR_DAYS[dayOffset(new Date(iso), new Date(now))] === undefined ? `on ${when}` : `at ${when}`;
}

/** "6 Dec 2026": a day without its time (a link's expiry). */
export const formatDate = (iso: string): string => readerFormats().date.format(new Date(iso));

/**
 * A calendar date as a record holds it ("2021-06-01", "2021-06" or "2021") in the same style:
 * "1 Jun 2021", "Jun 2021", "2021". Anything else is shown as it is.
 */
export function formatCalendarDate(value: string): string {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/u.exec(value);
  if (!m) return value;
  const [, y, mo, d] = m;
  if (mo === undefined) return y!;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, d === undefined ? 1 : Number(d)));
  if (Number.isNaN(date.getTime())) return value;
  return (d === undefined ? readerFormats().month : readerFormats().day).format(date);
}

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", "on 6 Dec 2026". */
export function formatAgo(iso: string, now: number = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  if (ms < MINUTE) return 'just now';
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  const offset = dayOffset(new Date(iso), new Date(now));
  // Hours while it is still the same day; then calendar words.
  if (ms < DAY && offset === 0) return `${Math.floor(ms / HOUR)} h ago`;
  if (offset === -1) return 'yesterday';
  if (ms < 7 * DAY) return `${Math.max(2, Math.round(ms / DAY))} days ago`;
  return `on ${formatDate(iso)}`;
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
