import { afterEach, beforeEach, vi } from 'vitest';
import { replaceLogSink } from '@/server/log.server';

// A console.error nobody expected is a failure: a test that expects one mocks console.error itself. The same for a
// line the shop's logger writes at level error or fatal: a test that expects one captures the log (captureLogs).
let spy: ReturnType<typeof vi.spyOn>;
let restoreSink: () => void;
beforeEach(() => {
  spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    throw new Error(`console.error was called: ${args.map(String).join(' ')}`);
  });
  restoreSink = replaceLogSink({
    write(line) {
      if (/^\{"level":"(error|fatal)"/.test(line)) throw new Error(`an error was logged: ${line}`);
      process.stdout.write(line);
    },
  });
});
afterEach(() => {
  spy.mockRestore();
  restoreSink();
});
