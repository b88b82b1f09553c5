import { describe, expect, it } from 'vitest';
import { FIGURES, HELP, USAGE, UsageError, parseCommandLine } from './cli.ts';

describe('the command line', () => {
  it('runs every figure at full size by default', () => {
    expect(parseCommandLine([])).toEqual({ kind: 'run', quick: false, only: undefined });
  });

  it('takes --quick and --only, with or without pnpm’s leading --', () => {
    const expected = { kind: 'run', quick: true, only: ['http', 'query'] };
    expect(parseCommandLine(['--quick', '--only=http,query'])).toEqual(expected);
    expect(parseCommandLine(['--', '--quick', '--only', 'http,query'])).toEqual(expected);
  });

  it("takes the scale figure's library size", () => {
    expect(parseCommandLine(['--only=scale', '--scale-documents=2000'])).toEqual({
      kind: 'run',
      quick: false,
      only: ['scale'],
      scale: { documents: 2000 },
    });
    expect(
      parseCommandLine(['--scale-paragraphs=9', '--scale-indexed=2000', '--scale-documents=10000']),
    ).toEqual({
      kind: 'run',
      quick: false,
      only: undefined,
      scale: { documents: 10000, indexed: 2000, paragraphs: 9 },
    });
  });

  it('answers --help with the usage and every figure', () => {
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--quick', '--help'])).toEqual({ kind: 'help' });
    expect(HELP.startsWith(USAGE)).toBe(true);
    for (const name of Object.keys(FIGURES)) expect(HELP).toContain(`  ${name} `);
  });

  it.each([
    [['--fast'], /'--fast'/],
    [['--only=http,nope,zzz'], /unknown figures: 'nope', 'zzz'/],
    [['--only='], /unknown figure: ''/],
    [['--only'], /--only/],
    [['--quick=yes'], /--quick/],
    [['query'], /query/],
    [['--', '--', '--quick'], /--quick/],
    [['--scale-documents=0'], /--scale-documents: a whole number from 1 to 10000, got '0'/],
    [['--scale-documents=1e3'], /--scale-documents/],
    [['--scale-documents=10001'], /--scale-documents/],
    [['--scale-indexed=-1'], /--scale-indexed/],
    [['--scale-paragraphs=100'], /--scale-paragraphs: a whole number from 1 to 99, got '100'/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
