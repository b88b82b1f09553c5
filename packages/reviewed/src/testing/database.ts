/**
 * A fresh, empty database for one test: a file in the test's temp folder, or, with
 * TEST_DATABASES=sqld, a libSQL server of its own (as the library's test databases are; npm test
 * runs these suites a second time that way). `close()` stops the server; a file goes with its
 * folder.
 */
import { join } from 'node:path';
import { startSqld } from '@oh/memory/testing';

export interface FreshDatabase {
  /** `file:…` or `http://127.0.0.1:<port>`: what `@libsql/client` and Oh's store take. */
  url: string;
  close(): Promise<void>;
}

export async function freshDatabase(dir: string, name: string): Promise<FreshDatabase> {
  if (process.env.TEST_DATABASES !== 'sqld')
    return { url: `file:${join(dir, `${name}.db`)}`, close: async () => {} };
  const server = await startSqld();
  return { url: server.url, close: () => server.stop() };
}
