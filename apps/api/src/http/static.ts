/**
 * Serves the built web app (WEB_DIST) from the API's origin with sirv: files with their content
 * types, an SPA fallback to index.html for page routes (never for /trpc), and no way out of the
 * folder.
 *
 * @example
 * const serveStatic = createStaticHandler(config.webDist);
 * serveStatic(req, res); // for every request that is not the API's
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import sirv from 'sirv';
import { SECURITY_HEADERS } from './security-headers.ts';

/** The API's own paths: never the app shell. */
const API_PATH = /^\/trpc(\/|$)/;

/** Vite's hashed assets never change under their name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

// sirv's types (mrmime) carry no charset: say UTF-8 for text, so a browser never guesses.
const TEXT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
};

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

const NOT_FOUND_PAGE = (why: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Not found</h1><p>${why}</p></body></html>\n`;

/** A page route: no file extension, and not the API's. */
function isPage(pathname: string): boolean {
  return posix.extname(pathname) === '' && !API_PATH.test(pathname);
}

function setHeaders(res: ServerResponse, pathname: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  const path = posix.normalize(pathname);
  const ext = posix.extname(path).toLowerCase();
  // Without an extension the file is a folder's index.html (a Vite build has no extensionless
  // files); the SPA fallback arrives here as /index.html.
  const html = ext === '' || ext === '.html';
  const type = html ? TEXT_TYPES['.html'] : TEXT_TYPES[ext];
  if (type) res.setHeader('Content-Type', `${type}; charset=utf-8`);
  // The HTML shell must always be revalidated, so a new build is picked up on the next load.
  res.setHeader('Cache-Control', !html && path.startsWith('/assets/') ? IMMUTABLE : 'no-cache');
}

/**
 * The handler for every request that is not the API's: GET and HEAD only.
 */
export function createStaticHandler(root: string): (req: IncomingMessage, res: ServerResponse) => void {
  const serve = sirv(root, {
    // Looks files up on each request, so a build made while the server runs is served whole:
    // sirv's startup listing would keep the old files' names and sizes until a restart.
    dev: true,
    // A weak ETag, so revalidating the no-cache index.html is a 304.
    etag: true,
    extensions: ['html'],
    setHeaders,
  });
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, NOT_FOUND_PAGE('Only GET and HEAD are served here; the API is at /trpc.'));
    }
    // sirv pipes the file without an error listener: one that cannot be read (gone in a rebuild,
    // not a regular file) would otherwise throw in the process. The status is already sent.
    res.once('pipe', (file) => file.once('error', () => res.destroy()));
    serve(req, res, () => {
      // The SPA fallback is decided here rather than by sirv's `single`, whose own rule for
      // "has an extension" differs: a missing asset is a real 404, not the app shell.
      if (!isPage((req.url ?? '/').split('?', 1)[0] ?? '/'))
        return send(res, 404, NOT_FOUND_PAGE('No such file.'));
      req.url = '/index.html';
      serve(req, res, () =>
        send(res, 404, NOT_FOUND_PAGE('The web app is not built yet (run the build); the API is at /trpc.')),
      );
    });
  };
}
