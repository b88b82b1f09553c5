/**
 * Serves the built web app (WEB_DIST) from the API's origin: files with their content types,
 * an SPA fallback to index.html for page routes, and no way out of the folder.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep, isAbsolute } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
  '.pdf': 'application/pdf',
};

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

function send(res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8'): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(body);
}

const NOT_FOUND_PAGE = (why: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Not found</h1><p>${why}</p></body></html>\n`;

async function fileStat(path: string) {
  try {
    const s = await stat(path);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** The file inside `root` that `urlPath` names, or null when it would leave `root`. */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const target = resolve(root, '.' + (decoded.startsWith('/') ? decoded : `/${decoded}`));
  const rel = relative(root, target);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) return null;
  return target;
}

/** Handles a non-API request. */
export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, 405, NOT_FOUND_PAGE('Only GET and HEAD are served here; the API is at /trpc.'));
  }
  const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  const absRoot = resolve(root);
  const indexPath = join(absRoot, 'index.html');
  const target = resolveInside(absRoot, pathname);
  if (target === null) return send(res, 404, NOT_FOUND_PAGE('No such page.'));

  let file = target;
  let st = await fileStat(file);
  if (!st && pathname.endsWith('/')) {
    file = join(target, 'index.html');
    st = await fileStat(file);
  }
  if (!st) {
    // A path with a file extension is a missing asset: a real 404, not the app shell.
    if (extname(pathname) !== '') return send(res, 404, NOT_FOUND_PAGE('No such file.'));
    file = indexPath;
    st = await fileStat(file);
    if (!st) return send(res, 404, NOT_FOUND_PAGE('The web app is not built yet (run the build); the API is at /trpc.'));
  }
  const isHtml = extname(file) === '.html';
  const rel = relative(absRoot, file).split(sep).join('/');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': st.size,
    // Vite's hashed assets never change; the HTML shell must always be revalidated.
    'Cache-Control': rel.startsWith('assets/') && !isHtml ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') return void res.end();
  await new Promise<void>((done) => {
    const stream = createReadStream(file);
    stream.on('error', () => {
      res.destroy();
      done();
    });
    stream.on('end', () => done());
    stream.pipe(res);
  });
}
