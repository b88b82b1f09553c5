/**
 * The defaults of the upload places (http/upload-places.ts) the configuration may change. No
 * imports, so the configuration stays light.
 */

/**
 * Upload bodies received at once, by every API process on the application database together
 * (UPLOADS_IN_FLIGHT). Each may hold up to the 20 MiB file limit in memory (twice, while the form
 * is parsed), so this with the extraction queue's size bounds what uploads can take. Not
 * measured: a bound on memory (4 × 2 × 20 MiB), not a throughput choice.
 */
export const DEFAULT_UPLOADS_IN_FLIGHT = 4;

/**
 * Of those, one owner's at most (UPLOADS_IN_FLIGHT_PER_OWNER): one owner's bodies (or slow
 * connections) never hold every place. Two, so two tabs of one person both upload; the web app
 * sends one file at a time.
 */
export const DEFAULT_UPLOADS_IN_FLIGHT_PER_OWNER = 2;
