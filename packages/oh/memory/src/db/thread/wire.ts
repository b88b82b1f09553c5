/**
 * What crosses between the API's main thread and its database thread: statements go as they are
 * (structured clone keeps numbers, bigints, strings, ArrayBuffers, null), result sets as plain
 * arrays (the row objects' index properties are not enumerable, so they would not survive a
 * clone) and errors as their fields, rebuilt into the same LibsqlError / LibsqlBatchError the
 * in-thread client throws — the store's error mapping reads their code and message.
 */
import { LibsqlBatchError, LibsqlError } from '@libsql/client';
import type { InStatement, ResultSet } from '@libsql/client';
import { ResultSetImpl } from '@libsql/core/util';
import { shapeRow } from '../local-client.ts';

export interface WireResultSet {
  columns: string[];
  columnTypes: string[];
  rows: unknown[][];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
}

export interface WireError {
  name: string;
  message: string;
  code?: string;
  extendedCode?: string;
  rawCode?: number;
  statementIndex?: number;
  cause?: string;
}

export type WireOutcome = { ok: true; results: WireResultSet[] } | { ok: false; error: WireError };

export type Request =
  | { id: number; op: 'execute'; stmt: InStatement }
  | { id: number; op: 'batch'; stmts: InStatement[]; mode: 'write' | 'read' | 'deferred' }
  | { id: number; op: 'batchGroup'; batches: InStatement[][] }
  | { id: number; op: 'close' };

/**
 * The answer to request `id`; or, before it, a notice that the call found another connection's
 * lock and the thread is waiting for it (the main thread then reads on its own connection).
 */
export type Reply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  | { id: number; waiting: true };

export function toWireResult(rs: ResultSet): WireResultSet {
  return {
    columns: rs.columns,
    columnTypes: rs.columnTypes,
    rows: rs.rows.map((r) => Array.from(r as ArrayLike<unknown>)),
    rowsAffected: rs.rowsAffected,
    lastInsertRowid: rs.lastInsertRowid,
  };
}

export function fromWireResult(w: WireResultSet): ResultSet {
  return new ResultSetImpl(
    w.columns,
    w.columnTypes,
    w.rows.map((values) => shapeRow(values, w.columns)),
    w.rowsAffected,
    w.lastInsertRowid,
  );
}

export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const e = error as Error & Partial<LibsqlBatchError>;
  const wire: WireError = { name: e.name, message: e.message };
  if (typeof e.code === 'string') wire.code = e.code;
  if (typeof e.extendedCode === 'string') wire.extendedCode = e.extendedCode;
  if (typeof e.rawCode === 'number') wire.rawCode = e.rawCode;
  if (error instanceof LibsqlBatchError) wire.statementIndex = error.statementIndex;
  if (e.cause instanceof Error) wire.cause = e.cause.message;
  return wire;
}

export function fromWireError(w: WireError): Error {
  const cause = w.cause === undefined ? undefined : new Error(w.cause);
  // LibsqlError's constructor puts "<code>: " in front of the message it is given.
  const given =
    w.code !== undefined && w.message.startsWith(`${w.code}: `)
      ? w.message.slice(w.code.length + 2)
      : w.message;
  if (w.statementIndex !== undefined) {
    return new LibsqlBatchError(
      given,
      w.statementIndex,
      w.code ?? 'UNKNOWN',
      w.extendedCode,
      w.rawCode,
      cause,
    );
  }
  if (w.code !== undefined) return new LibsqlError(given, w.code, w.extendedCode, w.rawCode, cause);
  const Ctor = w.name === 'TypeError' ? TypeError : w.name === 'RangeError' ? RangeError : Error;
  return new Ctor(w.message, cause ? { cause } : undefined);
}
