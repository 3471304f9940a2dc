import { afterAll, afterEach, beforeAll } from 'vitest';
import { clearFakeRuntimeEnv, fakeRuntimeEnv, setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { startTestApp, type TestApp } from './test-app';

/**
 * The file's app, set up once: started before the file's first test, closed after its last. The
 * answer stands for the app from the moment it starts, so a file writes `const app = useTestApp()`
 * at the top and uses `app` in its tests and hooks as it would the started app.
 */
export function useTestApp(options: Parameters<typeof startTestApp>[0] = {}, hooks: { afterClose?: () => void } = {}): TestApp {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp(options);
  });
  afterAll(async () => {
    await started?.close();
    hooks.afterClose?.();
  });
  const current = (): TestApp => {
    if (!started) throw new Error('the test app starts in beforeAll: use it inside a test or a hook');
    return started;
  };
  return new Proxy({} as TestApp, {
    get(_target, key) {
      const value = Reflect.get(current(), key) as unknown;
      return typeof value === 'function' ? value.bind(current()) : value;
    },
    set(_target, key, value) {
      return Reflect.set(current(), key, value);
    },
  });
}

/**
 * useTestApp against the fake runtime executable (test/fixtures/runtime): every test starts with
 * the fake answering normally, and the file leaves no fake settings in process.env behind.
 */
export function useFakeRuntimeApp(env: Record<string, string> = {}): TestApp {
  const app = useTestApp({ env: fakeRuntimeEnv(env) }, { afterClose: clearFakeRuntimeEnv });
  afterEach(() => setFakeMode('ok'));
  return app;
}
