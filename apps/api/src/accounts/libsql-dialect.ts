/**
 * A Kysely dialect over the API's own libSQL client, so better-auth reads and writes the
 * application database through the connection (and the database thread) everything else uses.
 *
 * Why not `@libsql/kysely-libsql`: its 0.4 line depends on `@libsql/client` ^0.8, which would
 * install a second, older native libSQL beside the 0.18 the API runs on, and it opens its own
 * connection beside the database thread. What a dialect needs from a client is small: run one
 * statement and return its rows, which `Client.execute` does. Interactive transactions are not
 * offered (the embedded client refuses them too), so better-auth runs with `transaction: false`.
 */
import type { Client, InValue } from '@libsql/client';
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

function notOffered(): never {
  throw new Error('interactive transactions are not offered on the application database; use one statement');
}

class LibsqlConnection implements DatabaseConnection {
  constructor(private readonly client: Client) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const rs = await this.client.execute({ sql: compiled.sql, args: compiled.parameters as InValue[] });
    // Rows as plain objects: libSQL's rows are array-likes with named keys.
    const rows = rs.rows.map((row) => Object.fromEntries(rs.columns.map((c, i) => [c, row[i]]))) as R[];
    const write = compiled.query.kind !== 'SelectQueryNode';
    return {
      rows,
      ...(write ? { numAffectedRows: BigInt(rs.rowsAffected) } : {}),
      ...(write && rs.lastInsertRowid !== undefined ? { insertId: BigInt(rs.lastInsertRowid) } : {}),
    };
  }

  // eslint-disable-next-line require-yield -- never streams: the caller is told why
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not offered on the application database');
  }
}

class LibsqlDriver implements Driver {
  readonly #connection: LibsqlConnection;
  constructor(client: Client) {
    this.#connection = new LibsqlConnection(client);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  async beginTransaction(): Promise<void> {
    notOffered();
  }
  async commitTransaction(): Promise<void> {
    notOffered();
  }
  async rollbackTransaction(): Promise<void> {
    notOffered();
  }
  async releaseConnection(): Promise<void> {}
  /** The client belongs to the API, which closes it; Kysely never does. */
  async destroy(): Promise<void> {}
}

export class AppDatabaseDialect implements Dialect {
  constructor(private readonly client: Client) {}
  createDriver(): Driver {
    return new LibsqlDriver(this.client);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
