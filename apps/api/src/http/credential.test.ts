/** Which credential a request carries: the bearer header, else the session cookie, read with `cookie`'s parser. */
import { describe, expect, it } from 'vitest';
import { readCredential } from './credential.ts';

describe('readCredential', () => {
  it('takes the bearer header over the cookie, and refuses a malformed one', () => {
    expect(readCredential({ authorization: 'Bearer ut_a', cookie: 'sponge_session=ut_b' })).toEqual({
      token: 'ut_a',
      from: 'bearer',
    });
    expect(readCredential({ authorization: 'bearer  ut_a ' })).toEqual({ token: 'ut_a', from: 'bearer' });
    expect(readCredential({ authorization: 'Basic abc', cookie: 'sponge_session=ut_b' })).toBe('malformed');
    expect(readCredential({})).toBeUndefined();
  });

  it('finds the session cookie among others, as sent, skipping a cleared one', () => {
    expect(readCredential({ cookie: 'theme=dark; sponge_session=ut_x-y_z; other=1' })).toEqual({
      token: 'ut_x-y_z',
      from: 'cookie',
    });
    expect(readCredential({ cookie: ' sponge_session = ut_x ;' })).toEqual({ token: 'ut_x', from: 'cookie' });
    expect(readCredential({ cookie: 'sponge_session=; sponge_session=ut_later' })).toEqual({
      token: 'ut_later',
      from: 'cookie',
    });
    expect(readCredential({ cookie: 'sponge_session=ut_first; sponge_session=ut_second' })).toEqual({
      token: 'ut_first',
      from: 'cookie',
    });
    // Not decoded: a percent-escape is no base64url token, and resolving it fails as invalid.
    expect(readCredential({ cookie: 'sponge_session=ut_%41' })).toEqual({ token: 'ut_%41', from: 'cookie' });
    for (const cookie of ['', 'sponge_session=', 'sponge_session', 'x_sponge_session=ut_a', 'theme=dark'])
      expect(readCredential({ cookie }), cookie).toBeUndefined();
  });
});
