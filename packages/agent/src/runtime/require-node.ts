/**
 * Imported first by the runtime command (main.ts): an ES module's imports run in order, so this
 * refuses Node older than 24 (SPEC §6c) before any other module's code runs. The API's entry
 * points make the same check (apps/api/src/node-version.ts); the runtime depends on no API code.
 */
const MINIMUM_NODE_MAJOR = 24;

const major = Number(/^v(\d+)\./.exec(process.version)?.[1]);
if (!(major >= MINIMUM_NODE_MAJOR)) {
  process.stderr.write(
    `Sponge's hosted runtime needs Node ${MINIMUM_NODE_MAJOR} or newer; this is Node ${process.version} ` +
      `(${process.execPath}). Run it through npm start, which uses the Node locked in tools/node, or ` +
      `install Node ${MINIMUM_NODE_MAJOR} LTS.\n`,
  );
  process.exit(1);
}
