/**
 * The places of upload bodies being received at once (SPEC §6b "Fair and bounded", §6c). tRPC
 * buffers an upload's whole form before the procedure runs, so without them a burst of 20 MiB
 * uploads would take as much memory as it liked before the extraction queue could say no.
 *
 * - A place is taken only once the caller is known (server.ts authenticates first): a stranger's
 *   connection never holds one.
 * - Places are counted overall and per owner (UPLOADS_IN_FLIGHT, UPLOADS_IN_FLIGHT_PER_OWNER), by
 *   every API process on the application database together (http/limit-store.ts). A place lapses
 *   by itself after PLACE_LEASE_MS, in case its process died with it.
 * - A body that stops arriving (under `minBytes` in a `windowMs`) is ended (server.ts answers 408
 *   `too_slow`), so a slow or stalled client holds its place for one window, not for the request
 *   timeout.
 *
 * Past a limit an upload is answered 429 `busy` (server.ts reads its body and throws it away).
 * With the library's extraction queue this bounds what uploads can hold: bodies being received
 * (these places), files waiting and files being read (@sponge/library), each at most the file
 * limit. The places are the HTTP layer's, not the library's: they count request bodies on their
 * sockets, before the library is handed a file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@libsql/client';
import { enterUploadPlace, leaveUploadPlace, uploadPlacesTaken } from './limit-store.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../tokens.ts';

/** How soon a refused upload may try again: receiving a body takes seconds, not minutes (not measured). */
const RETRY_AFTER_SECONDS = 2;

/**
 * How long a place lasts if nobody gives it back (its process died): past the server's request
 * timeout (60 s, server.ts), by which every body has arrived or been cut off.
 */
const PLACE_LEASE_MS = 90_000;

/** Runs `run` every `ms` until the returned function is called; tests turn their own clock. */
type Ticker = (ms: number, run: () => void) => () => void;

const REAL_TICKER: Ticker = (ms, run) => {
  const timer = setInterval(run, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface UploadPace {
  /** A body that sends fewer bytes than this in a window is ended… */
  minBytes: number;
  /** …the window. */
  windowMs: number;
  ticker?: Ticker;
}

/**
 * 64 KiB in 10 s (6.4 KiB/s). Not measured: far below any connection a PDF is sent over (a 20 MiB
 * file must arrive at 350 KiB/s to beat the 60 s request timeout anyway), far above a stalled
 * one. Bytes are counted as they reach the socket, so a slow start of TCP passes.
 */
const DEFAULT_UPLOAD_PACE: UploadPace = { minBytes: 64 * 1024, windowMs: 10_000 };

export interface UploadsInFlight {
  /**
   * Takes a place for `ownerId`'s upload `req` until its body has been read or the request has
   * ended; the 429 `busy` to answer when no place is free (nothing taken then).
   */
  enter(req: IncomingMessage, res: ServerResponse, ownerId: string): Promise<ApiError | null>;
  /** Places taken now, by every API process on the database. */
  taken(): Promise<number>;
  /**
   * Calls `onStall` (once) when the body of `req` sends less than the minimum in a window;
   * stops watching when the body is in or the request ends.
   */
  watchPace(req: IncomingMessage, res: ServerResponse, onStall: (error: ApiError) => void): void;
}

export function createUploadsInFlight(options: {
  db: Client;
  now: () => Date;
  max: number;
  perOwner: number;
  pace?: UploadPace;
  log: { warn: (obj: object, msg: string) => void };
}): UploadsInFlight {
  const { db, now, max, log } = options;
  const perOwner = Math.min(options.perOwner, max);
  const pace = options.pace ?? DEFAULT_UPLOAD_PACE;
  const ticker = pace.ticker ?? REAL_TICKER;

  const busy = (message: string) =>
    new ApiError({
      code: 'TOO_MANY_REQUESTS',
      reason: 'busy',
      message: `${message} The server is busy; try again in ${RETRY_AFTER_SECONDS} s.`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });

  const tooSlow = () =>
    new ApiError({
      code: 'TIMEOUT',
      reason: 'too_slow',
      message:
        `The upload stopped arriving: less than ${Math.round(pace.minBytes / 1024)} KiB in ` +
        `${Math.round(pace.windowMs / 1000)} s. Send the file again over a steadier connection.`,
    });

  /** Whether the request is over: its body in, or its connection gone. */
  const over = (req: IncomingMessage) => req.complete || req.destroyed;

  return {
    async enter(req, res, ownerId) {
      const id = newId('upl');
      const nowMs = now().getTime();
      const place = await enterUploadPlace(
        db,
        { id, ownerId, nowMs, untilMs: nowMs + PLACE_LEASE_MS },
        { max, perOwner },
      );
      if (!place.entered) {
        const uploads = (n: number) => (n === 1 ? '1 upload' : `${n} uploads`);
        return place.takenByOwner >= perOwner
          ? busy(`You are sending ${uploads(place.takenByOwner)} already; one has to finish first.`)
          : busy(`${uploads(place.taken)} ${place.taken === 1 ? 'is' : 'are'} being received already.`);
      }
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        leaveUploadPlace(db, id).catch((err: unknown) =>
          // The place lapses by itself (PLACE_LEASE_MS).
          log.warn({ err }, 'giving an upload place back failed'),
        );
      };
      // Whichever comes first: the body in, or the request or its answer or its connection
      // gone (a request answered before its body was read is let go by Node and says nothing
      // more when its socket closes).
      req.once('end', leave);
      req.once('close', leave);
      req.socket.once('close', leave);
      res.once('close', leave);
      // Over while the place was being taken: nothing will say so again.
      if (over(req) || res.writableEnded) leave();
      return null;
    },

    taken: () => uploadPlacesTaken(db, now().getTime()),

    watchPace(req, res, onStall) {
      // Counted at the socket, never by reading the body: the body is tRPC's to read.
      let seen = req.socket.bytesRead;
      const stop = ticker(pace.windowMs, () => {
        if (over(req)) return stop();
        const read = req.socket.bytesRead;
        if (read - seen < pace.minBytes) {
          stop();
          onStall(tooSlow());
        }
        seen = read;
      });
      req.once('end', stop);
      req.once('close', stop);
      req.socket.once('close', stop);
      res.once('close', stop);
    },
  };
}

/**
 * tRPC's `responseMeta` for the upload handler: a `Retry-After` header beside a `busy` answer's
 * `retryAfterSeconds`, for clients that read the header rather than the body.
 */
export function retryAfterMeta(opts: { data: readonly unknown[] }): { headers?: Record<string, string> } {
  for (const item of opts.data) {
    const seconds = (item as { error?: { data?: { retryAfterSeconds?: unknown } } }).error?.data
      ?.retryAfterSeconds;
    if (typeof seconds === 'number') return { headers: { 'retry-after': String(seconds) } };
  }
  return {};
}
