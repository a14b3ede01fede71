// Loaded into the daemon under test with `node --expose-gc --import`: SIGUSR2 runs a full
// garbage collection, so the benchmark can read the resident memory after one.
process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
});
