/**
 * The oldest Node every entry point runs on (SPEC §6c). Older ones fail later and worse: on
 * Node 20 the first PDF upload killed the API (`worker.getHeapStatistics is not a function`).
 *
 * @example
 * nodeVersionProblem('v20.20.2', 'sponge-api'); // 'sponge-api needs Node 24 or newer; …'
 */
export const MINIMUM_NODE_MAJOR = 24;

/** Why this Node cannot run the command, or null when it can. */
export function nodeVersionProblem(version: string, command: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= MINIMUM_NODE_MAJOR) return null;
  return (
    `${command} needs Node ${MINIMUM_NODE_MAJOR} or newer; this is Node ${version} (${process.execPath}). ` +
    `Run it through npm start / npm test, which use the Node locked in tools/node, or install Node ${MINIMUM_NODE_MAJOR} LTS.`
  );
}

/** Stops the process with the reason (exit 1) when this Node is too old. */
export function requireSupportedNode(command: string): void {
  const problem = nodeVersionProblem(process.version, command);
  if (problem === null) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
