import { describe, expect, it } from 'vitest';
import { trpcUrl } from './api-url.ts';

describe('trpcUrl', () => {
  it.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/trpc'],
    ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000/trpc'],
    ['http://127.0.0.1:3000//', 'http://127.0.0.1:3000/trpc'],
    ['http://127.0.0.1:3000/trpc', 'http://127.0.0.1:3000/trpc'],
    ['http://127.0.0.1:3000/trpc/', 'http://127.0.0.1:3000/trpc'],
    ['http://127.0.0.1:3000/trpc//', 'http://127.0.0.1:3000/trpc'],
    ['https://example.org/sponge', 'https://example.org/sponge/trpc'],
    ['https://example.org/sponge/', 'https://example.org/sponge/trpc'],
    ['https://example.org/sponge/trpc/', 'https://example.org/sponge/trpc'],
    // Only a last segment named trpc is the endpoint.
    ['https://example.org/trpcx/', 'https://example.org/trpcx/trpc'],
  ])('%s is the API at %s', (base, endpoint) => {
    expect(trpcUrl(base)).toBe(endpoint);
  });

  it('refuses a base with a query or a fragment, which would end up before the procedure path', () => {
    // tRPC's links append `/<procedure>` to the whole string: `…/trpc/?a=1/agent.query`.
    for (const base of ['http://h/trpc/?a=1', 'http://h/?a=1', 'http://h/trpc/#top'])
      expect(() => trpcUrl(base), base).toThrow(`the API's URL takes no query or fragment: ${base}`);
  });

  it('refuses what is not a URL', () => {
    expect(() => trpcUrl('127.0.0.1:3000/')).toThrow();
  });
});
