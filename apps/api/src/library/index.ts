/**
 * `@sponge/api/library`: what the bench took of the library before it was a package of its own;
 * now @sponge/library's. Kept only until the bench imports the package (issue 38).
 */
export { EMBED_BATCH, OwnerVectorIndex, createLibrary, openLibraryDatabase } from '@sponge/library';
export type { AddedDocument, DocumentHit, Library, NewLibraryDocument } from '@sponge/library';
