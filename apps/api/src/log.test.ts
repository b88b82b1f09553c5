/**
 * The log's two shapes: JSON lines for machines, readable lines on a terminal; the level and
 * the redaction hold in both.
 */
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from './log.ts';

/** A destination that keeps what was written, and says whether it is a terminal. */
function sink(isTTY: boolean) {
  const lines: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
    { isTTY },
  );
  return { stream, lines };
}

/** The lines without colours (pino-pretty colours them when the test runs on a terminal). */
const plain = (lines: string[]) => stripVTControlCharacters(lines.join('\n'));

describe('createLogger', () => {
  it('writes one JSON object a line when not on a terminal, without credentials', () => {
    const { stream, lines } = sink(false);
    const log = createLogger('info', 'sponge-test', { destination: stream });
    log.info(
      { port: 3000, run: { runToken: 'rt_secret' }, req: { headers: { cookie: 'sponge_session=ut_x' } } },
      'listening',
    );
    log.debug('below the level');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 30,
      name: 'sponge-test',
      service: 'sponge-test',
      msg: 'listening',
      port: 3000,
    });
    expect(lines[0]).not.toMatch(/rt_secret|ut_x/);
  });

  it('writes readable lines on a terminal, without credentials', () => {
    const { stream, lines } = sink(true);
    const log = createLogger('debug', 'sponge-test', { destination: stream });
    log.info({ port: 3000, user: { userToken: 'ut_secret' } }, 'listening');
    log.debug('shown at debug');
    log.trace('below the level');
    const text = plain(lines);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(sponge-test\): listening$/m);
    expect(text).toMatch(/^\s+port: 3000$/m);
    expect(text).toMatch(/DEBUG \(sponge-test\): shown at debug/);
    expect(text).not.toMatch(/below the level|ut_secret/);
    expect(() => JSON.parse(lines[0]!)).toThrow();
  });

  it('lets the caller choose either shape', () => {
    const json = sink(true);
    createLogger('info', 'sponge-test', { destination: json.stream, pretty: false }).warn('plain');
    expect(JSON.parse(json.lines[0]!)).toMatchObject({ level: 40, msg: 'plain' });
    const pretty = sink(false);
    createLogger('info', 'sponge-test', { destination: pretty.stream, pretty: true }).warn('readable');
    expect(plain(pretty.lines)).toMatch(/WARN \(sponge-test\): readable/);
  });
});
