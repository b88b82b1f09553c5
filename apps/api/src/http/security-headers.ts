/**
 * The headers every answer carries (SPEC §6c): the app shell, its files, every /trpc answer and
 * every refusal. server.ts sets them before anything else answers.
 *
 * The Content-Security-Policy allows what the built web app needs and nothing more: its own
 * module scripts and stylesheets (Vite emits no inline script), `data:` images for the empty
 * favicon in index.html, and inline styles, because Radix's dialogs lock scrolling by injecting a
 * `<style>` element at run time (react-remove-scroll); a style cannot run code. No plugins, no
 * framing by any page, forms and `<base>` only to this origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Sent on every answer, whatever the setup. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  // For browsers without frame-ancestors.
  'X-Frame-Options': 'DENY',
};

/**
 * The set for this server: HSTS too when browsers reach it over TLS (PUBLIC_URL https). Never on
 * plain HTTP, where a browser ignores it anyway and a later move to another host would be stuck.
 */
export function securityHeaders(publicUrl: string | null): Readonly<Record<string, string>> {
  if (publicUrl === null || !publicUrl.startsWith('https:')) return SECURITY_HEADERS;
  return { ...SECURITY_HEADERS, 'Strict-Transport-Security': 'max-age=31536000' };
}
