/**
 * What most API test files start from: a test server (startTestServer's defaults) with demo
 * users signed in.
 */
import { startTestServer } from './harness.ts';
import type { TestServer } from './harness.ts';

/** A test server and the tokens of the demo users `userIds`, signed in, in their order. */
export async function startSignedIn<const U extends readonly string[]>(
  ...userIds: U
): Promise<[TestServer, ...{ [K in keyof U]: string }]> {
  const s = await startTestServer();
  try {
    // A tuple of as many tokens as ids: map() keeps the length, which its type forgets.
    const tokens = (await Promise.all(userIds.map((id) => s.login(id)))) as { [K in keyof U]: string };
    return [s, ...tokens];
  } catch (err) {
    await s.close();
    throw err;
  }
}
