// Starts the database thread's TypeScript module. Where the thread already has a TypeScript loader
// the first import works; otherwise (Node does not carry `--import tsx` hooks into threads
// everywhere, nor do test runners) tsx is registered here. The retry imports under another URL:
// a failed import is cached for its URL.
try {
  await import('./worker.ts');
} catch (error) {
  if (error?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker.ts?with-tsx');
}
