/**
 * Where the app's pages are (the routes in app.tsx), built in one place so an id in a path is
 * always encoded, and the same way.
 *
 * @example memoryPanelPath('doc 1', 'ses_2') // '/documents/doc%201/memory?session=ses_2'
 */
export const documentPath = (documentId: string): string => `/documents/${encodeURIComponent(documentId)}`;

/** The document page at a page of a PDF (`?page=4#page-4`: its page marker is scrolled to). */
export const documentPagePath = (documentId: string, page: number): string =>
  `${documentPath(documentId)}?page=${page}#page-${page}`;

/** The document page with a quote to find on a page and highlight (`?page=4&quote=…`). */
export const documentQuotePath = (documentId: string, page: number, quote: string): string =>
  `${documentPath(documentId)}?${new URLSearchParams({ page: String(page), quote }).toString()}`;

/** The Memory panel of a document, at a session when one is named (else at the newest). */
export const memoryPanelPath = (documentId: string, sessionId?: string): string =>
  `${documentPath(documentId)}/memory${sessionId === undefined ? '' : `?session=${encodeURIComponent(sessionId)}`}`;

export const reviewHistoryPath = (documentId: string): string => `${documentPath(documentId)}/reviews`;

export const profilesPath = (documentId: string): string => `${documentPath(documentId)}/profiles`;
