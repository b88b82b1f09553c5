/**
 * How long the review dialog takes to open (UI.md: at once, ≤ 300 ms, whatever the size of the
 * source document): from the click on *Propose for review* to the cited passage on screen, as
 * User Timing entries the browser keeps, which the e2e test reads and bench/README.md records.
 */
export const OPEN_MARK = 'review:open';
export const SHOWN_MARK = 'review:passage-shown';
export const OPEN_MEASURE = 'review:open-to-passage';

/** At the click: a fresh start, so each opening is measured on its own. */
export function markReviewOpen(): void {
  performance.clearMarks(OPEN_MARK);
  performance.clearMarks(SHOWN_MARK);
  performance.clearMeasures(OPEN_MEASURE);
  performance.mark(OPEN_MARK);
}
