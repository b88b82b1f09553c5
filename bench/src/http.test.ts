import { describe, expect, it } from 'vitest';
import { apiDirOf, apiStartFlags, nodeFlagsOf } from './http.ts';

describe('the flags the bench starts the API with', () => {
  it('are the Node flags of a `node [flags] dist/bin/main.js` script, in order', () => {
    expect(nodeFlagsOf('node dist/bin/main.js')).toEqual([]);
    expect(nodeFlagsOf('node --max-semi-space-size=16 dist/bin/main.js')).toEqual([
      '--max-semi-space-size=16',
    ]);
    expect(nodeFlagsOf(' node  --a --b=2   dist/bin/main.js ')).toEqual(['--a', '--b=2']);
  });

  it('refuse a start script of another shape rather than measure another process', () => {
    expect(() => nodeFlagsOf('tsx src/main.ts')).toThrow(/not `node \[flags\] dist\/bin\/main.js`/);
    expect(() => nodeFlagsOf('node --a dist/other.js')).toThrow(/dist\/other.js/);
    expect(() => nodeFlagsOf('bash scripts/start.sh')).toThrow();
  });

  it("are read from apps/api's own start script", () => {
    // Whatever that script says today: this checks the reading, not the script's contents.
    expect(() => apiStartFlags()).not.toThrow();
    expect(apiStartFlags().every((flag) => flag.startsWith('--'))).toBe(true);
  });
});

describe('the API the bench starts', () => {
  it("is this checkout's apps/api unless BENCH_API_DIR names another", () => {
    expect(apiDirOf({})).toMatch(/\/apps\/api\/$/);
    expect(apiDirOf({ BENCH_API_DIR: '' })).toBe(apiDirOf({}));
    expect(apiDirOf({ BENCH_API_DIR: '/work/before/apps/api' })).toBe('/work/before/apps/api');
  });

  it('refuses a relative BENCH_API_DIR, which would depend on where the bench was started', () => {
    expect(() => apiDirOf({ BENCH_API_DIR: 'before/apps/api' })).toThrow(
      /absolute path, not before\/apps\/api/,
    );
  });
});
