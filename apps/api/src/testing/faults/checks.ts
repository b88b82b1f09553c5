/**
 * What must hold after every fault round, read from the memory database behind the API's back:
 * each acknowledged call is in the log exactly once at its version, nothing else is, the notes
 * are the projection of exactly those calls, every run keeps its one session as it was opened,
 * and the verifier finds nothing.
 *
 * Each round runs @oh/memory's verifier (what `verify` runs per session: log replay against the
 * notes, every digest, the link index) on the sessions written in that round. Re-embedding every
 * note to compare the recall vectors is left to the end: it grows to seconds a round and is not
 * what a kill can break. The suites change cohorts of runs every few rounds, so a round verifies
 * a bounded history; the other sessions are still checked row by row every round. At the end of
 * each suite the `verify` command itself runs over the whole database (`verifyCommand`).
 */
import { Writable } from 'node:stream';
import type { Client } from '@libsql/client';
import { openVerifier } from '@oh/memory';
import type { MemoryVerifier } from '@oh/memory';
import { expectedNotes, requestIdOf } from '@sponge/testing/fault-agents';
import type { Agent } from '@sponge/testing/fault-agents';
import { loadConfig } from '../../config.ts';
import { runVerify } from '../../bin/verify-command.ts';

interface SessionRow {
  id: string;
  runId: string;
  state: string;
  version: number;
  startedAt: string;
  expiresAt: string;
}

export async function readSessions(client: Client): Promise<Map<string, SessionRow>> {
  const rs = await client.execute('SELECT id, run_id, state, version, started_at, expires_at FROM sessions');
  return new Map(
    rs.rows.map((r) => [
      String(r.id),
      {
        id: String(r.id),
        runId: String(r.run_id),
        state: String(r.state),
        version: Number(r.version),
        startedAt: String(r.started_at),
        expiresAt: String(r.expires_at),
      },
    ]),
  );
}

export interface RoundCheck {
  /** Acknowledged calls missing from the log. */
  lost: number;
  /** Log entries that are not exactly one acknowledged call at its version. */
  doubled: number;
  problems: string[];
}

/** Rows of one table for the agents' sessions, grouped by session. */
async function bySession(client: Client, sql: string, agents: Agent[]) {
  const rs = await client.execute({ sql, args: [JSON.stringify(agents.map((a) => a.sessionId))] });
  const out = new Map<string, (typeof rs.rows)[number][]>();
  for (const r of rs.rows) out.set(String(r.session_id), [...(out.get(String(r.session_id)) ?? []), r]);
  return out;
}

/**
 * Checks every agent's session against what it was acknowledged, and the sessions against those
 * taken when the runs were accepted (`opened`); runs the verifier on the sessions of `verifying`.
 */
export async function checkRound(
  client: Client,
  verifier: MemoryVerifier,
  agents: Agent[],
  opened: Map<string, SessionRow>,
  verifying: Agent[],
): Promise<RoundCheck> {
  const check: RoundCheck = { lost: 0, doubled: 0, problems: [] };
  const sessions = await readSessions(client);
  if (sessions.size !== opened.size)
    check.problems.push(`${sessions.size - opened.size} session rows appeared`);
  const mine = `SELECT value FROM json_each(?)`;
  const logs = await bySession(
    client,
    `SELECT session_id, version, request_id FROM log WHERE session_id IN (${mine}) ORDER BY version`,
    agents,
  );
  const notes = await bySession(
    client,
    `SELECT session_id, name, text FROM notes WHERE session_id IN (${mine})`,
    agents,
  );
  for (const agent of agents) {
    const where = `agent ${agent.index} (session ${agent.sessionId})`;
    const v = agent.version;
    // Not reopened: the run's one session, still open, with the start and expiry it was opened with.
    const ofRun = [...sessions.values()].filter((s) => s.runId === agent.runId).map((s) => s.id);
    if (ofRun.length !== 1 || ofRun[0] !== agent.sessionId)
      check.problems.push(`${where}: the run has sessions ${ofRun.join(', ')}`);
    const now = sessions.get(agent.sessionId);
    const then = opened.get(agent.sessionId);
    const same = (s: SessionRow | undefined) => s && [s.runId, s.state, s.startedAt, s.expiresAt].join(' ');
    if (!now || !then || same(now) !== same(then) || now.state !== 'open')
      check.problems.push(`${where}: was ${JSON.stringify(then)}, now ${JSON.stringify(now)}`);
    if (now?.version !== v) check.problems.push(`${where}: at version ${now?.version}, ${v} acknowledged`);

    // Calls 1..v were acknowledged, call k at version k with its own request id.
    const log = logs.get(agent.sessionId) ?? [];
    const matched = log.filter(
      (r) => Number(r.version) <= v && String(r.request_id) === requestIdOf(agent, Number(r.version)),
    ).length;
    check.lost += v - matched;
    check.doubled += log.length - matched;

    const held = new Map((notes.get(agent.sessionId) ?? []).map((r) => [String(r.name), String(r.text)]));
    const expected = expectedNotes(v);
    const differ = [...new Set([...held.keys(), ...expected.keys()])].filter(
      (name) => held.get(name) !== expected.get(name),
    );
    if (differ.length > 0)
      check.problems.push(
        `${where}: notes differ from ${v} acknowledged calls at ${differ.slice(0, 5).join(', ')}`,
      );
  }
  for (const agent of verifying) {
    const report = await verifier.verify(agent.sessionId);
    if (!report.ok)
      check.problems.push(
        `agent ${agent.index} (session ${agent.sessionId}): verify: ${report.findings.map((f) => JSON.stringify(f)).join('; ')}`,
      );
  }
  return check;
}

/** The verifier `verify` runs per session, on the cluster's memory database, vectors left out. */
export async function openSessionVerifier(env: Record<string, string>): Promise<MemoryVerifier> {
  return openVerifier({ url: loadConfig(env).memoryDb.url });
}

/** `pnpm --filter @sponge/api verify` on the cluster's databases: its exit status and report. */
export async function verifyCommand(env: Record<string, string>): Promise<{ code: number; report: string }> {
  let report = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      report += chunk.toString('utf8');
      done();
    },
  });
  const code = await runVerify([], {
    env: { ...env, LOG_LEVEL: 'silent' },
    cwd: process.cwd(),
    out,
    err: out,
  });
  return { code, report };
}
