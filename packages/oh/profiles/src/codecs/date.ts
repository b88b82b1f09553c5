/**
 * ISO 8601 calendar dates, full or (unless the spec says otherwise) partial: `YYYY`, `YYYY-MM`.
 */
import { fail, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import type { DateSpec } from './spec.ts';

// prettier-ignore
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

function daysInMonth(year: number, month: number): number {
  // Proleptic Gregorian, as ISO 8601 reckons.
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

export function checkDate(input: unknown, spec: DateSpec): Checked<string> {
  const partial = spec.partial ?? true;
  const forms = partial ? 'YYYY-MM-DD, YYYY-MM or YYYY' : 'YYYY-MM-DD';
  if (typeof input !== 'string') return fail(`expected an ISO 8601 date (${forms}), got ${typeOf(input)}`);
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(input);
  if (!m) return fail(`${show(input)} is not an ISO 8601 date (${forms})`);
  const [, y, mo, d] = m;
  if (!partial && d === undefined)
    return fail(`${input} is a partial date; a full date YYYY-MM-DD is required`);
  if (mo !== undefined) {
    const month = Number(mo);
    if (month < 1 || month > 12) return fail(`${input} is not a calendar date: there is no month ${mo}`);
    if (d !== undefined) {
      const day = Number(d);
      const days = daysInMonth(Number(y), month);
      if (day < 1 || day > days) {
        return fail(`${input} is not a calendar date: ${MONTHS[month - 1]} ${y} has ${days} days`);
      }
    }
  }
  return pass(input);
}
