/**
 * The owner's library as one unit the API holds (SPEC §6b): adding documents, the background
 * indexer and the per-owner search index, wired so that a document becoming ready refreshes its
 * owner's index.
 */
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/memory';
import type { DocumentSource } from '@sponge/contract';

import { insertDocumentStatement } from '../data/documents.ts';
import { newId } from '../tokens.ts';
import { createIndexer } from './indexer.ts';
import type { Indexer, IndexerLog } from './indexer.ts';
import { createLibrarySearch } from './search.ts';
import type { LibrarySearch } from './search.ts';

export interface AddedDocument {
  id: string;
  title: string;
  pages: number;
  characters: number;
}

export interface NewLibraryDocument {
  title: string;
  authors: string[];
  source: DocumentSource;
  pages: string[];
}

export interface Library {
  indexer: Indexer;
  search: LibrarySearch;
  /** Stores a document for its owner and queues it for indexing. Limits are checked by the caller. */
  add(ownerId: string, doc: NewLibraryDocument, now: Date): Promise<AddedDocument>;
  close(): Promise<void>;
}

export function createLibrary(options: { db: Client; adapter: EmbeddingAdapter; log: IndexerLog }): Library {
  const search = createLibrarySearch(options);
  // The owner's library version moves with every ready document, so search re-syncs by itself;
  // nothing to do on ready here.
  const indexer = createIndexer(options);
  return {
    indexer,
    search,
    async add(ownerId, doc, now) {
      const id = newId('doc');
      await options.db.execute(
        insertDocumentStatement(
          {
            id,
            ownerId,
            title: doc.title,
            authors: doc.authors,
            abstract: '',
            pages: doc.pages,
            source: doc.source,
          },
          now,
        ),
      );
      indexer.kick();
      return { id, title: doc.title, pages: doc.pages.length, characters: documentCharacters(doc.pages) };
    },
    async close() {
      await indexer.stop();
      search.close();
    },
  };
}

/** Characters of a document's stored text (pages joined by a blank line), without joining them. */
export function documentCharacters(pages: readonly string[]): number {
  return pages.reduce((n, p) => n + p.length, 0) + 2 * Math.max(0, pages.length - 1);
}
