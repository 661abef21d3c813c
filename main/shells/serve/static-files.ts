// Serves the renderer build. Only files under `root` are reachable; anything else is 404.
import { createReadStream, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json; charset=utf-8',
};

/** Returns false when no such file exists under root (the caller answers 404). */
export function serveStatic(root: string, urlPath: string, res: ServerResponse, headers: Record<string, string>): boolean {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return false;
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  if (rel.includes('\0')) return false;
  const full = normalize(join(root, rel));
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return false;
  let size: number;
  try {
    const st = statSync(full);
    if (!st.isFile()) return false;
    size = st.size;
  } catch {
    return false;
  }
  const ext = extname(full);
  res.writeHead(200, {
    ...headers,
    'Content-Type': types[ext] ?? 'application/octet-stream',
    'Content-Length': String(size),
    // Hashed asset names can be cached for good; index.html must always be fresh.
    'Cache-Control': ext === '.html' ? 'no-cache' : 'public, max-age=31536000, immutable',
  });
  createReadStream(full).pipe(res);
  return true;
}
